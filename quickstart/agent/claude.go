//go:build !nomodels

package agent

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/tabwright/tabwright/quickstart/trace"
)

func init() { conversations["claude"] = newClaude }

// noThinking are the models that refused adaptive thinking in this process;
// later calls to them go without it.
var noThinking sync.Map

type claudeConv struct {
	client anthropic.MessageService
	key    string // only to keep it out of error messages
	model  string
	system string
	tools  []anthropic.ToolUnionParam
	msgs   []anthropic.MessageParam
	images []imageAt // the images in msgs, oldest first
}

// imageAt is where one image sits: message, tool_result block, content part.
type imageAt struct{ msg, block, part int }

func newClaude(c clientConfig, system, kickoff string, tools []ToolDef) conversation {
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	if c.key != "" {
		opts = append(opts, option.WithAPIKey(c.key))
	}
	// The Messages service alone, not NewClient: a client links every
	// service of the SDK into the binary (some 13 MB more, and more memory
	// at every start of the MCP server too). The production base URL comes
	// first so that a --base-url after it wins.
	opts = append([]option.RequestOption{option.WithEnvironmentProduction(), option.WithHTTPClient(http.DefaultClient)}, opts...)
	cv := &claudeConv{client: anthropic.NewMessageService(opts...), key: c.key, model: c.Model, system: system}
	for _, d := range tools {
		schema := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
		for k, v := range d.Schema {
			switch k {
			case "type":
			case "properties":
				schema.Properties = v
			case "required":
				schema.Required = stringList(v)
			default:
				schema.ExtraFields[k] = v
			}
		}
		cv.tools = append(cv.tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name: d.Name, Description: anthropic.String(d.Description), InputSchema: schema}})
	}
	cv.msgs = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(kickoff))}
	return cv
}

func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (c *claudeConv) addResults(rs []toolResult) {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(rs))
	for _, r := range rs {
		b := anthropic.NewToolResultBlock(r.CallID, r.Text, r.IsError)
		// A tool result's content holds image blocks beside its text.
		for _, im := range r.Images {
			c.images = append(c.images, imageAt{len(c.msgs), len(blocks), len(b.OfToolResult.Content)})
			b.OfToolResult.Content = append(b.OfToolResult.Content, anthropic.ToolResultBlockParamContentUnion{
				OfImage: &anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(im.Data), MediaType: anthropic.Base64ImageSourceMediaType(im.MediaType)}}}})
		}
		blocks = append(blocks, b)
	}
	c.msgs = append(c.msgs, anthropic.NewUserMessage(blocks...))
	for ; len(c.images) > keptImages; c.images = c.images[1:] {
		at := c.images[0]
		c.msgs[at.msg].OfUser.Content[at.block].OfToolResult.Content[at.part] = anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: imageForgotten}}
	}
}

func (c *claudeConv) params(thinking bool) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model: anthropic.Model(c.model), MaxTokens: maxReplyTokens, Messages: c.msgs, Tools: c.tools,
		System: []anthropic.TextBlockParam{{Text: c.system}},
		// Automatic prompt caching: the system prompt, the tools and the
		// conversation so far are read from the cache on the next turn.
		CacheControl: anthropic.NewCacheControlEphemeralParam(),
	}
	if thinking {
		p.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}}
	}
	return p
}

func (c *claudeConv) send(ctx context.Context, turn int, tr *trace.Trace) (*reply, error) {
	_, refused := noThinking.Load(c.model)
	thinking := !refused
	msg, err := c.client.New(ctx, c.params(thinking))
	if err != nil && thinking && thinkingRefused(err) {
		// Decided on what this request sent, so concurrent runs of the
		// same model each recover.
		noThinking.Store(c.model, true)
		tr.Add(trace.NoThinking(turn, c.model))
		msg, err = c.client.New(ctx, c.params(false))
	}
	if err != nil {
		return nil, claudeError(err, c.key)
	}
	c.msgs = append(c.msgs, msg.ToParam())
	r := &reply{Stop: string(msg.StopReason), Model: string(msg.Model),
		Refused: msg.StopReason == anthropic.StopReasonRefusal, Pause: msg.StopReason == anthropic.StopReasonPauseTurn,
		Usage: Tokens{Input: int(msg.Usage.InputTokens), Output: int(msg.Usage.OutputTokens),
			CacheWrite: int(msg.Usage.CacheCreationInputTokens), CacheRead: int(msg.Usage.CacheReadInputTokens)}}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			r.Calls = append(r.Calls, toolCall{ID: b.ID, Name: b.Name, Input: b.Input})
		}
	}
	r.Text = strings.Join(text, "\n")
	return r, nil
}

// thinkingRefused: a 400 that names thinking, for a request that sent it.
func thinkingRefused(err error) bool {
	var e *anthropic.Error
	return errors.As(err, &e) && e.StatusCode == http.StatusBadRequest && strings.Contains(strings.ToLower(e.Message+e.Error()), "thinking")
}

func claudeError(err error, key string) error {
	var e *anthropic.Error
	if errors.As(err, &e) {
		return statusError(e.StatusCode, e.Message, e.Response, key)
	}
	return transportError(err, key)
}
