package agenttest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// The image formats both services take, by media type, with the bytes an
// image of that type starts with (the services check that they agree).
var imageMagic = map[string][]string{
	"image/png":  {"\x89PNG\r\n\x1a\n"},
	"image/jpeg": {"\xff\xd8\xff"},
	"image/gif":  {"GIF87a", "GIF89a"},
	"image/webp": {"RIFF"},
}

// imageData checks base64 image data against its media type.
func imageData(mediaType, data string) string {
	magic, ok := imageMagic[mediaType]
	if !ok {
		return fmt.Sprintf("media type %q is not one of image/jpeg, image/png, image/gif, image/webp", mediaType)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) == 0 {
		return "data is not base64 image data"
	}
	for _, m := range magic {
		if bytes.HasPrefix(raw, []byte(m)) {
			return ""
		}
	}
	return "the image data does not match media type " + mediaType
}

// anthropicImages checks the content of tool_result blocks: a string, or a
// list of text blocks and image blocks with a base64 source.
func anthropicImages(body map[string]any) []string {
	var p []string
	for i, m := range list(body["messages"]) {
		for _, b := range blocks(m) {
			if b["type"] != "tool_result" {
				continue
			}
			c, isList := b["content"].([]any)
			if !isList {
				continue
			}
			for j, x := range c {
				if why := anthropicResultPart(x); why != "" {
					p = append(p, fmt.Sprintf("messages[%d] tool_result %v content[%d]: %s", i, b["tool_use_id"], j, why))
				}
			}
		}
	}
	return p
}

func anthropicResultPart(x any) string {
	m, _ := x.(map[string]any)
	switch m["type"] {
	case "text":
		if _, ok := m["text"].(string); !ok {
			return "a text block needs text"
		}
		return ""
	case "image":
		src, _ := m["source"].(map[string]any)
		if src["type"] != "base64" || len(src) != 3 {
			return `an image block needs source {"type": "base64", "media_type", "data"}`
		}
		mt, _ := src["media_type"].(string)
		data, _ := src["data"].(string)
		return imageData(mt, data)
	}
	return fmt.Sprintf("block type %v is not text or image", m["type"])
}

// openaiImages checks content parts: image_url parts only in user
// messages, each a URL or a base64 data: URL of an image.
func openaiImages(body map[string]any) []string {
	var p []string
	for i, msg := range list(body["messages"]) {
		for j, part := range blocks(msg) {
			if part["type"] != "image_url" {
				continue
			}
			why := ""
			if role(msg) != "user" {
				why = "image_url parts are only allowed in user messages"
			} else {
				why = openaiImagePart(part)
			}
			if why != "" {
				p = append(p, fmt.Sprintf("messages[%d] content[%d]: %s", i, j, why))
			}
		}
	}
	return p
}

func openaiImagePart(part map[string]any) string {
	iu, _ := part["image_url"].(map[string]any)
	u, _ := iu["url"].(string)
	if d, ok := iu["detail"]; ok && d != "auto" && d != "low" && d != "high" {
		return fmt.Sprintf("detail %v is not auto, low or high", d)
	}
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return ""
	}
	rest, ok := strings.CutPrefix(u, "data:")
	mt, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return "image_url.url is neither an http(s) URL nor a data:MEDIA_TYPE;base64,DATA URL"
	}
	return imageData(mt, data)
}

// HasImages says whether a request carries any image (either protocol).
func HasImages(req Request) bool {
	return strings.Contains(req.Raw, `"type":"image"`) || strings.Contains(req.Raw, `"type":"image_url"`)
}
