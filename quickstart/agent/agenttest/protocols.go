package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicMessage is a Messages API response for t.
func anthropicMessage(t Turn, n int) map[string]any {
	content := []any{}
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	stop := "end_turn"
	for i, c := range t.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake%d_%d", n, i), "name": c.Name, "input": orEmpty(c.Input)})
		stop = "tool_use"
	}
	if t.Refuse {
		stop = "refusal"
	}
	if t.Stop != "" {
		stop = t.Stop
	}
	return map[string]any{"id": fmt.Sprintf("msg_fake%d", n), "type": "message", "role": "assistant", "model": t.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": t.Usage.Input, "output_tokens": t.Usage.Output,
			"cache_creation_input_tokens": t.Usage.CacheWrite, "cache_read_input_tokens": t.Usage.CacheRead}}
}

// openaiCompletion is a Chat Completions response for t. prompt_tokens
// includes the cached tokens, as OpenAI reports them.
func openaiCompletion(t Turn, n int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if t.Text != "" {
		msg["content"] = t.Text
	}
	finish := "stop"
	if len(t.Calls) > 0 {
		var calls []any
		for i, c := range t.Calls {
			args := c.Raw
			if args == "" {
				b, _ := json.Marshal(orEmpty(c.Input))
				args = string(b)
			}
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_fake%d_%d", n, i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": args}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	if t.Refuse {
		msg["content"], msg["refusal"] = nil, t.Text
	}
	if t.Stop != "" {
		finish = t.Stop
	}
	prompt := t.Usage.Input + t.Usage.CacheRead
	return map[string]any{"id": fmt.Sprintf("chatcmpl-fake%d", n), "object": "chat.completion", "created": 1767225600, "model": t.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": t.Usage.Output, "total_tokens": prompt + t.Usage.Output,
			"prompt_tokens_details": map[string]any{"cached_tokens": t.Usage.CacheRead}}}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// checkAnthropic checks a request as the Messages API would.
func checkAnthropic(r *http.Request, body map[string]any, key string) []string {
	var p []string
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		p = append(p, fmt.Sprintf("%s %s, want POST /v1/messages", r.Method, r.URL.Path))
	}
	if r.Header.Get("anthropic-version") == "" {
		p = append(p, "no anthropic-version header")
	}
	if key != "" && r.Header.Get("x-api-key") != key {
		p = append(p, "x-api-key is not the key")
	}
	if _, ok := body["model"].(string); !ok {
		p = append(p, "no model")
	}
	if n, ok := body["max_tokens"].(float64); !ok || n < 1 {
		p = append(p, "max_tokens missing or < 1")
	}
	for i, tl := range list(body["tools"]) {
		m, _ := tl.(map[string]any)
		schema, _ := m["input_schema"].(map[string]any)
		if m["name"] == nil || schema["type"] != "object" {
			p = append(p, fmt.Sprintf("tools[%d] needs a name and an object input_schema", i))
		}
	}
	return append(p, checkAnthropicTurns(list(body["messages"]))...)
}

// checkAnthropicTurns checks the messages alternate from a user's, and each
// tool_result answers the tool_use ids of the message before it.
func checkAnthropicTurns(msgs []any) []string {
	if len(msgs) == 0 || role(msgs[0]) != "user" {
		return []string{"messages must start with a user message"}
	}
	var p []string
	for i := 1; i < len(msgs); i++ {
		if role(msgs[i]) == role(msgs[i-1]) {
			p = append(p, fmt.Sprintf("messages[%d] has the same role as the one before", i))
		}
		if role(msgs[i-1]) != "assistant" {
			continue
		}
		want, got := blockIDs(msgs[i-1], "tool_use", "id"), blockIDs(msgs[i], "tool_result", "tool_use_id")
		if strings.Join(want, ",") != strings.Join(got, ",") {
			p = append(p, fmt.Sprintf("messages[%d]: tool_result ids %v do not answer the tool_use ids %v", i, got, want))
		}
	}
	return p
}

// blockIDs are the field of msg's content blocks of type typ, in order.
func blockIDs(msg any, typ, field string) []string {
	var ids []string
	for _, b := range blocks(msg) {
		if b["type"] == typ {
			ids = append(ids, fmt.Sprint(b[field]))
		}
	}
	return ids
}

// checkOpenAI checks a request as Chat Completions would.
func checkOpenAI(r *http.Request, body map[string]any, key string) []string {
	var p []string
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		p = append(p, fmt.Sprintf("%s %s, want POST /v1/chat/completions", r.Method, r.URL.Path))
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		p = append(p, "Authorization is not the key")
	}
	if _, ok := body["model"].(string); !ok {
		p = append(p, "no model")
	}
	for i, tl := range list(body["tools"]) {
		m, _ := tl.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		if m["type"] != "function" || fn["name"] == nil {
			p = append(p, fmt.Sprintf("tools[%d] is not a function tool with a name", i))
		}
	}
	msgs := list(body["messages"])
	for i := 0; i < len(msgs); i++ {
		m, _ := msgs[i].(map[string]any)
		calls := list(m["tool_calls"])
		for j, c := range calls {
			cm, _ := c.(map[string]any)
			if i+1+j >= len(msgs) {
				break // the newest assistant message is answered in the next request
			}
			next, _ := msgs[i+1+j].(map[string]any)
			if next["role"] != "tool" || next["tool_call_id"] != cm["id"] {
				p = append(p, fmt.Sprintf("messages[%d] should be the tool answer to %v", i+1+j, cm["id"]))
			}
		}
	}
	if len(msgs) == 0 || role(msgs[0]) != "system" {
		p = append(p, "messages must start with the system message")
	}
	return p
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func role(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["role"].(string)
	return s
}

func blocks(v any) []map[string]any {
	m, _ := v.(map[string]any)
	var out []map[string]any
	for _, b := range list(m["content"]) {
		if bm, ok := b.(map[string]any); ok {
			out = append(out, bm)
		}
	}
	return out
}
