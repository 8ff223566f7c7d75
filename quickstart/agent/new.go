package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/tabwright/tabwright/engine/netgate"
)

// Config chooses and configures an agent (qs run --agent, --base-url,
// --api-key-env).
type Config struct {
	Agent     string // replay | claude[:MODEL] | openai:MODEL | gemini:MODEL
	BaseURL   string // another server speaking the vendor's API (a gateway, Ollama, vLLM...)
	APIKeyEnv string // read the key from this variable only
	// Getenv reads the environment (nil: os.Getenv); tests plant keys here.
	Getenv     func(string) string
	HTTPClient *http.Client // nil: the SDK's
	Retry      *RetryPolicy // nil: DefaultRetry
}

// Error is a configuration error: a stable code and what to do.
type Error struct{ Code, Message string }

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// DefaultClaudeModel is the model of a bare --agent claude: quickstarted's
// default, so one command line means one model in both tools.
const DefaultClaudeModel = "claude-opus-5"

// GeminiBaseURL is Gemini's OpenAI-compatible endpoint, the route
// gemini:MODEL takes (Chat Completions through the OpenAI SDK).
const GeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai/"

// CodeModelsLeftOut is New's error code when this build has no model
// agents: tabwright built with -tags nomodels leaves the vendor SDKs out,
// so the MCP server starts without paying for them.
const CodeModelsLeftOut = "qs.models_left_out"

// conversations starts a conversation with each vendor this build has;
// claude.go and openai.go add theirs unless built with -tags nomodels.
var conversations = map[string]func(c clientConfig, system, kickoff string, tools []ToolDef) conversation{}

// ModelsBuiltIn reports whether this build has the model agents.
func ModelsBuiltIn() bool { return len(conversations) > 0 }

// Vendors and the variables their keys are read from, in order.
var keyVars = map[string][]string{
	"claude": {"TABWRIGHT_ANTHROPIC_API_KEY", "QUICKSTARTED_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"},
	"openai": {"TABWRIGHT_OPENAI_API_KEY", "QUICKSTARTED_OPENAI_API_KEY", "OPENAI_API_KEY"},
	"gemini": {"TABWRIGHT_GEMINI_API_KEY", "QUICKSTARTED_GEMINI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

// clientConfig is what a vendor's client is made from. The key stays in
// this unexported field: it is never printed, traced or written.
type clientConfig struct {
	Model, BaseURL string
	HTTPClient     *http.Client
	key            string
}

type modelAgent struct {
	vendor string
	cc     clientConfig
	retry  RetryPolicy
	start  func(c clientConfig, system, kickoff string, tools []ToolDef) conversation
}

func (m *modelAgent) Name() string { return m.vendor + ":" + m.cc.Model }

func (m *modelAgent) Run(ctx context.Context, s *Session) Outcome {
	conv := m.start(m.cc, SystemFor(s.Tools.Extra() != nil), Kickoff(s.Task), Tools(s))
	return runLoop(ctx, s, conv, m.retry)
}

// New makes the agent c names, resolving its credentials now, so a missing
// key is one error before any attempt runs.
func New(c Config) (Agent, error) {
	vendor, model, _ := strings.Cut(c.Agent, ":")
	if vendor == "replay" && model == "" {
		if c.BaseURL != "" || c.APIKeyEnv != "" {
			return nil, &Error{"qs.agent_flags", "--base-url and --api-key-env are for model agents, not replay"}
		}
		return Replay{}, nil
	}
	if _, ok := keyVars[vendor]; !ok {
		return nil, &Error{"qs.agent_unknown", fmt.Sprintf("unknown agent %q: choose replay, claude[:MODEL], openai:MODEL or gemini:MODEL", c.Agent)}
	}
	start, built := conversations[vendor]
	if !built {
		return nil, &Error{CodeModelsLeftOut, fmt.Sprintf("--agent %s needs the model SDKs, which this build leaves out (built with -tags nomodels)", c.Agent)}
	}
	if model == "" {
		if vendor != "claude" {
			return nil, &Error{"qs.agent_model_missing", fmt.Sprintf("--agent %s needs a model (%s:MODEL); no default is assumed", vendor, vendor)}
		}
		model = DefaultClaudeModel
	}
	cc := clientConfig{Model: model, BaseURL: c.BaseURL, HTTPClient: c.HTTPClient}
	if vendor == "gemini" && cc.BaseURL == "" {
		cc.BaseURL = GeminiBaseURL
	}
	if cc.BaseURL != "" {
		if u, err := url.Parse(cc.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &Error{"qs.agent_base_url", fmt.Sprintf("--base-url %q is not an http(s) URL", c.BaseURL)}
		}
	}
	key, err := credential(vendor, c, model)
	if err != nil {
		return nil, err
	}
	cc.key = key
	m := &modelAgent{vendor: vendor, cc: cc, retry: DefaultRetry, start: start}
	if c.Retry != nil {
		m.retry = *c.Retry
	}
	return m, nil
}

// credential finds the key: --api-key-env's variable alone when given;
// none needed for a server on loopback; else the vendor's variables in
// order (an empty value counts as unset).
func credential(vendor string, c Config, model string) (string, error) {
	get := c.Getenv
	if get == nil {
		get = os.Getenv
	}
	vars := keyVars[vendor]
	if c.APIKeyEnv != "" {
		vars = []string{c.APIKeyEnv}
	} else if loopback(c.BaseURL) {
		return "", nil
	}
	for _, v := range vars {
		if k := strings.TrimSpace(get(v)); k != "" {
			return k, nil
		}
	}
	hint := " (or name another variable with --api-key-env)"
	if c.APIKeyEnv != "" {
		hint = ""
	}
	return "", &Error{"qs.agent_key_missing", fmt.Sprintf("--agent %s:%s needs an API key and none is set: set %s%s. The key stays in the harness; the sandbox never sees it.",
		vendor, model, orList(vars), hint)}
}

func orList(v []string) string {
	if len(v) == 1 {
		return v[0]
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}

// loopback reports whether raw is a URL on this machine's loopback.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && raw != "" && netgate.IsLoopback(u.Hostname())
}

func jsonValid(b []byte) bool           { return json.Valid(b) }
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
