package agent_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

func testImage(t *testing.T, format string) []byte {
	m := image.NewRGBA(image.Rect(0, 0, 2, 2))
	m.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&b, m, nil)
	} else {
		err = png.Encode(&b, m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var screenshotTurns = []agenttest.Turn{{Calls: []agenttest.Call{{Name: "browser_screenshot", Input: map[string]any{"tab_handle": "t1"}}}}, {Text: "the page shows a red dot"}}

// The screenshot a tool returns reaches the model in the next request, as
// each protocol carries an image: in the tool_result's content (Anthropic),
// or in a user message right after the tool messages (Chat Completions,
// whose tool messages are text only).
func TestScreenshotReachesModel(t *testing.T) {
	shot := testImage(t, "png")
	b64 := base64.StdEncoding.EncodeToString(shot)
	vendors(t, screenshotTurns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, _ := run(a, testTask(task.Budgets{}), &belt{extra: &extra{shot: agent.Image{MediaType: "image/png", Data: shot}}})
		reqs := srv.Requests()
		if o.StopReason != agent.StopCompleted || len(reqs) != 2 || agenttest.HasImages(reqs[0]) {
			t.Fatalf("%+v, %d requests", o, len(reqs))
		}
		msgs := reqs[1].Body["messages"].([]any)
		if strings.Contains(reqs[1].Raw, `"anthropic"`) || reqs[1].Path == "/v1/messages" {
			last := msgs[len(msgs)-1].(map[string]any)
			res := last["content"].([]any)[0].(map[string]any)
			content := res["content"].([]any)
			img := content[1].(map[string]any)
			src := img["source"].(map[string]any)
			if res["type"] != "tool_result" || len(content) != 2 || content[0].(map[string]any)["text"] != "image/png 2x2" ||
				img["type"] != "image" || src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != b64 {
				t.Errorf("tool_result: %v", res)
			}
			return
		}
		tool, user := msgs[len(msgs)-2].(map[string]any), msgs[len(msgs)-1].(map[string]any)
		parts := user["content"].([]any)
		intro, img := parts[0].(map[string]any), parts[1].(map[string]any)
		callID := tool["tool_call_id"].(string)
		if tool["role"] != "tool" || tool["content"] != "image/png 2x2" || user["role"] != "user" || len(parts) != 2 ||
			intro["type"] != "text" || !strings.Contains(intro["text"].(string), "browser_screenshot") || !strings.Contains(intro["text"].(string), callID) ||
			img["type"] != "image_url" || img["image_url"].(map[string]any)["url"] != "data:image/png;base64,"+b64 {
			t.Errorf("tool %v\nuser %v", tool, user)
		}
	})
}

// An image whose bytes are not its media type is refused by the fake as
// by the service (a 400). The Claude run stops on it (its images are
// checked, not guessed at); a Chat Completions run goes on without images,
// as with a server that takes none.
func TestMalformedImageRefused(t *testing.T) {
	wrong := agent.Image{MediaType: "image/png", Data: testImage(t, "jpeg")}
	for _, v := range []string{"claude", "openai"} {
		t.Run(v, func(t *testing.T) {
			srv, spec := agenttest.Anthropic(screenshotTurns...), "claude:c"
			if v == "openai" {
				srv, spec = agenttest.OpenAI(screenshotTurns...), "openai:m"
			}
			defer srv.Close()
			a, _ := agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL(), Retry: fast})
			o, tr := run(a, testTask(task.Budgets{}), &belt{extra: &extra{shot: wrong}})
			errs := srv.Errs()
			if len(errs) != 1 || !strings.Contains(errs[0], "does not match media type image/png") {
				t.Errorf("fake: %v", errs)
			}
			stopped := o.StopReason == agent.StopError && strings.Contains(o.Detail, "API error 400")
			if v == "openai" {
				stopped = o.StopReason == agent.StopCompleted && count(tr, trace.ImagesUnsupported) == 1
			}
			if !stopped {
				t.Errorf("%+v", o)
			}
		})
	}
}

// A Chat Completions server without vision refuses the image: the run goes
// on without it (traced, and said in the tool text), and later images are
// not sent at all.
func TestOpenAIServerWithoutImages(t *testing.T) {
	call := agenttest.Turn{Calls: []agenttest.Call{{Name: "browser_screenshot", Input: map[string]any{"tab_handle": "t1"}}}}
	srv := agenttest.OpenAI(call, call, agenttest.Turn{Text: "done"})
	srv.NoImages = true
	defer srv.Close()
	a, _ := agent.New(agent.Config{Agent: "openai:m", BaseURL: srv.BaseURL(), Retry: fast})
	o, tr := run(a, testTask(task.Budgets{}), &belt{extra: &extra{shot: agent.Image{MediaType: "image/png", Data: testImage(t, "png")}}})
	reqs := srv.Requests()
	if o.StopReason != agent.StopCompleted || len(reqs) != 4 || count(tr, trace.ImagesUnsupported) != 1 || len(srv.Errs()) != 0 {
		t.Fatalf("%+v, %d requests, errs %v\n%s", o, len(reqs), srv.Errs(), tr.JSONL())
	}
	if !agenttest.HasImages(reqs[1]) || agenttest.HasImages(reqs[2]) || agenttest.HasImages(reqs[3]) {
		t.Errorf("images in requests: %v %v %v", agenttest.HasImages(reqs[1]), agenttest.HasImages(reqs[2]), agenttest.HasImages(reqs[3]))
	}
	if n := strings.Count(reqs[3].Raw, "is not shown: the model's server refused images"); n != 2 {
		t.Errorf("the tool texts say the image was dropped %d times, want 2:\n%s", n, reqs[3].Raw)
	}
}

// Only the newest images stay in the conversation (each is sent again on
// every turn); older ones become a note.
func TestOldImagesForgotten(t *testing.T) {
	call := agenttest.Turn{Calls: []agenttest.Call{{Name: "browser_screenshot", Input: map[string]any{"tab_handle": "t1"}}}}
	turns := []agenttest.Turn{call, call, call, call, call, call, call, {Text: "done"}}
	shot := agent.Image{MediaType: "image/png", Data: testImage(t, "png")}
	vendors(t, turns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, _ := run(a, testTask(task.Budgets{}), &belt{extra: &extra{shot: shot}})
		reqs := srv.Requests()
		last := reqs[len(reqs)-1].Raw
		images := strings.Count(last, `"type":"image"`) + strings.Count(last, `"type":"image_url"`)
		if o.StopReason != agent.StopCompleted || len(reqs) != 8 || images != 5 || strings.Count(last, "no longer shown") != 2 {
			t.Errorf("%+v: %d requests, %d images in the last", o, len(reqs), images)
		}
	})
}
