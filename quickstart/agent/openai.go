package agent

import (
	"context"
	"errors"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// GeminiBaseURL is Gemini's OpenAI-compatible endpoint, the route
// gemini:MODEL takes (Chat Completions through the OpenAI SDK).
const GeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai/"

type openaiConv struct {
	client openai.ChatCompletionService
	key    string // only to keep it out of error messages
	model  string
	// compat: a server other than OpenAI's own (a base URL, or Gemini),
	// which gets max_tokens; OpenAI's reasoning models need
	// max_completion_tokens instead.
	compat bool
	tools  []openai.ChatCompletionToolUnionParam
	msgs   []openai.ChatCompletionMessageParamUnion
}

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
	cv := &openaiConv{client: openai.NewChatCompletionService(opts...), key: c.key, model: c.Model, compat: c.BaseURL != ""}
	for _, d := range tools {
		cv.tools = append(cv.tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: d.Name, Description: param.NewOpt(d.Description), Parameters: shared.FunctionParameters(d.Schema)}))
	}
	cv.msgs = []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(kickoff)}
	return cv
}

func (c *openaiConv) addResults(rs []toolResult) {
	for _, r := range rs {
		text := r.Text
		if r.IsError {
			// Chat Completions has no error flag on tool messages.
			text = "ERROR: " + text
		}
		c.msgs = append(c.msgs, openai.ToolMessage(text, r.CallID))
	}
}

func (c *openaiConv) send(ctx context.Context, turn int, tr *trace.Trace) (*reply, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(c.model), Messages: c.msgs, Tools: c.tools}
	if c.compat {
		p.MaxTokens = openai.Int(maxReplyTokens)
	} else {
		p.MaxCompletionTokens = openai.Int(maxReplyTokens)
	}
	resp, err := c.client.New(ctx, p)
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

func openaiError(err error, key string) error {
	var e *openai.Error
	if errors.As(err, &e) {
		msg := e.Message
		if msg == "" {
			msg = http.StatusText(e.StatusCode)
		}
		return httpError(e.StatusCode, redact(msg, key), e.Response)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return connError(errors.New(redact(err.Error(), key)))
}
