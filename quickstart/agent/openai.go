//go:build !nomodels

package agent

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tabwright/tabwright/quickstart/trace"
)

func init() {
	conversations["openai"] = newOpenAI
	conversations["gemini"] = newOpenAI // Gemini's OpenAI-compatible endpoint
}

type openaiConv struct {
	client openai.ChatCompletionService
	key    string // only to keep it out of error messages
	model  string
	// compat: a server other than OpenAI's own (a base URL, or Gemini),
	// which gets max_tokens first; OpenAI's own gets max_completion_tokens
	// (its reasoning models refuse max_tokens). Either way the server's
	// answer decides (see tokenParam).
	compat  bool
	baseURL string
	tools   []openai.ChatCompletionToolUnionParam
	msgs    []openai.ChatCompletionMessageParamUnion
	// noImages: the server refused an image; results go as text alone.
	noImages bool
	shown    []shownImages // where images sit in msgs, to take them back
}

// shownImages is one turn's image message and the tool messages it shows
// the images of.
type shownImages struct {
	user, n int // the user message, and how many images it holds
	tools   []toolAt
}

type toolAt struct {
	at           int
	text, callID string
}

const imagesDropped = "\n[the image this tool returned is not shown: the model's server refused images]"

func newOpenAI(c clientConfig, system, kickoff string, tools []ToolDef) conversation {
	// The Chat Completions service alone, not NewClient: a client links
	// every service of the SDK into the binary (some 15 MB more, and more
	// memory at every start of the MCP server too), and reads OPENAI_*
	// variables, where our own credential order decides. An empty key
	// sends none (a loopback server needs none).
	opts := []option.RequestOption{option.WithEnvironmentProduction(), option.WithMaxRetries(0), option.WithAPIKey(c.key)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	cv := &openaiConv{client: openai.NewChatCompletionService(opts...), key: c.key, model: c.Model, compat: c.BaseURL != "", baseURL: c.BaseURL}
	for _, d := range tools {
		cv.tools = append(cv.tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: d.Name, Description: param.NewOpt(d.Description), Parameters: shared.FunctionParameters(d.Schema)}))
	}
	cv.msgs = []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(kickoff)}
	return cv
}

// addResults sends each result as a tool message; tool messages carry text
// only, so the turn's images follow in one user message that says which
// call each belongs to.
func (c *openaiConv) addResults(rs []toolResult) {
	var sh shownImages
	var parts []openai.ChatCompletionContentPartUnionParam
	for _, r := range rs {
		text := r.Text
		if r.IsError {
			// Chat Completions has no error flag on tool messages.
			text = "ERROR: " + text
		}
		if len(r.Images) > 0 && c.noImages {
			text += imagesDropped
		}
		if len(r.Images) > 0 && !c.noImages {
			sh.tools = append(sh.tools, toolAt{at: len(c.msgs), text: text, callID: r.CallID})
			sh.n += len(r.Images)
			for i, im := range r.Images {
				parts = append(parts, openai.TextContentPart(fmt.Sprintf("Image %d of %s's result (tool call %s):", i+1, r.Name, r.CallID)),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
						URL: "data:" + im.MediaType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)}))
			}
		}
		c.msgs = append(c.msgs, openai.ToolMessage(text, r.CallID))
	}
	if len(parts) > 0 {
		sh.user = len(c.msgs)
		c.shown = append(c.shown, sh)
		c.msgs = append(c.msgs, openai.UserMessage(parts))
	}
	c.forgetOld()
}

// forgetOld turns the oldest image messages into a note until at most
// keptImages images are left (a turn's images go together).
func (c *openaiConv) forgetOld() {
	total := 0
	for _, sh := range c.shown {
		total += sh.n
	}
	for ; total > keptImages; c.shown = c.shown[1:] {
		total -= c.shown[0].n
		c.msgs[c.shown[0].user] = openai.UserMessage(imageForgotten)
	}
}

// dropImages takes every image message back out and says so in the tool
// messages whose images they showed.
func (c *openaiConv) dropImages() {
	c.noImages = true
	for _, sh := range c.shown {
		for _, t := range sh.tools {
			c.msgs[t.at] = openai.ToolMessage(t.text+imagesDropped, t.callID)
		}
	}
	for i := len(c.shown) - 1; i >= 0; i-- {
		u := c.shown[i].user
		c.msgs = append(c.msgs[:u:u], c.msgs[u+1:]...)
	}
	c.shown = nil
}

func (c *openaiConv) send(ctx context.Context, turn int, tr *trace.Trace) (*reply, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(c.model), Messages: c.msgs, Tools: c.tools}
	sent := c.tokenParam()
	setTokenParam(&p, sent)
	resp, err := c.client.New(ctx, p)
	if other := otherTokenParam(sent); err != nil && tokenParamRefused(err, sent) {
		// A gateway in front of a reasoning model wants
		// max_completion_tokens; an older server knows only max_tokens.
		tokenParams.Store(c.baseURL+" "+c.model, other)
		tr.Add(trace.TokenParam(turn, c.model, sent, other, openaiError(err, c.key).Error()))
		setTokenParam(&p, other)
		resp, err = c.client.New(ctx, p)
	}
	if err != nil && len(c.shown) > 0 && imagesRefused(err) {
		// A server without vision (many OpenAI-compatible ones) answers
		// 400: the run goes on without images rather than failing.
		tr.Add(trace.NoImages(turn, c.model, openaiError(err, c.key).Error()))
		c.dropImages()
		p.Messages = c.msgs
		resp, err = c.client.New(ctx, p)
	}
	if err != nil {
		return nil, openaiError(err, c.key)
	}
	if len(resp.Choices) == 0 {
		return nil, &APIError{Status: http.StatusOK, Message: "the response had no choices", Infra: true, Retriable: true}
	}
	ch := resp.Choices[0]
	m := ch.Message
	c.msgs = append(c.msgs, m.ToParam())
	u := resp.Usage
	cached := int(u.PromptTokensDetails.CachedTokens)
	in := int(u.PromptTokens) - cached
	if in < 0 {
		in = 0
	}
	r := &reply{Text: m.Content, Stop: ch.FinishReason, Model: resp.Model,
		Refused: m.Refusal != "" || ch.FinishReason == "content_filter",
		Usage:   Tokens{Input: in, Output: int(u.CompletionTokens), CacheRead: cached}}
	if m.Refusal != "" {
		r.Text = m.Refusal
	}
	for _, tc := range m.ToolCalls {
		name, args := tc.Function.Name, tc.Function.Arguments
		if tc.Type == "custom" {
			name, args = tc.Custom.Name, tc.Custom.Input
		}
		r.Calls = append(r.Calls, toolCall{ID: tc.ID, Name: name, Input: rawArgs(args)})
	}
	return r, nil
}

// The two names of the reply's length cap in Chat Completions.
const (
	paramMaxTokens           = "max_tokens"
	paramMaxCompletionTokens = "max_completion_tokens"
)

// tokenParams are the cap names servers asked for in this process, by
// base URL and model: later calls send that one first.
var tokenParams sync.Map

// tokenParam is the cap name to send: what the server asked for before,
// else max_tokens to a compatible server and max_completion_tokens to
// OpenAI's own.
func (c *openaiConv) tokenParam() string {
	if v, ok := tokenParams.Load(c.baseURL + " " + c.model); ok {
		return v.(string)
	}
	if c.compat {
		return paramMaxTokens
	}
	return paramMaxCompletionTokens
}

func otherTokenParam(name string) string {
	if name == paramMaxTokens {
		return paramMaxCompletionTokens
	}
	return paramMaxTokens
}

// setTokenParam caps the reply with the parameter called name alone.
func setTokenParam(p *openai.ChatCompletionNewParams, name string) {
	p.MaxTokens, p.MaxCompletionTokens = param.Opt[int64]{}, param.Opt[int64]{}
	if name == paramMaxTokens {
		p.MaxTokens = openai.Int(maxReplyTokens)
	} else {
		p.MaxCompletionTokens = openai.Int(maxReplyTokens)
	}
}

// unsupportedWords are how servers say a parameter is not theirs (OpenAI:
// code unsupported_parameter, "Unsupported parameter: 'max_tokens' is not
// supported with this model"; others: unrecognized, unknown, extra inputs).
var unsupportedWords = regexp.MustCompile(`(?i)unsupported|not supported|unrecogni[sz]ed|unknown|not allowed|not permitted|extra (inputs|fields)`)

// tokenParamRefused: a 400 that names the cap parameter sent and says it is
// not taken (a 400 about its value, or anything else, is not).
func tokenParamRefused(err error, sent string) bool {
	var e *openai.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest {
		return false
	}
	msg := e.Message
	if msg == "" && e.Response != nil {
		msg = e.RawJSON()
	}
	named := e.Param == sent || strings.Contains(msg, sent)
	return named && (e.Code == "unsupported_parameter" || unsupportedWords.MatchString(msg))
}

// rawArgs is the function arguments as JSON; text that is not JSON is
// passed on as a JSON string, so the tool answers "needs {...}".
func rawArgs(s string) []byte {
	if s == "" {
		return nil
	}
	b := []byte(s)
	if jsonValid(b) {
		return b
	}
	q, _ := jsonMarshal(s)
	return q
}

// imagesRefused: a 400, for a request that carried images.
func imagesRefused(err error) bool {
	var e *openai.Error
	return errors.As(err, &e) && e.StatusCode == http.StatusBadRequest
}

func openaiError(err error, key string) error {
	var e *openai.Error
	if errors.As(err, &e) {
		return statusError(e.StatusCode, e.Message, e.Response, key)
	}
	return transportError(err, key)
}
