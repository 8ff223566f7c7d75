package run

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"
)

// builtinBook is the price book tabwright ships: each model's rates with
// the page they were read from, and the day they were read (as_of).
//
//go:embed pricebook.json
var builtinBook []byte

// Book is a price book with where it came from, so a cost can say which
// rates made it.
type Book struct {
	Prices Prices
	Origin string // "built-in" or the file it was read from
	AsOf   string // the day the rates were read (YYYY-MM-DD); "" when the file does not say
}

// String names the book as the console and doctor show it.
func (b Book) String() string {
	if b.AsOf != "" {
		return fmt.Sprintf("%s, rates as of %s (%d models)", b.Origin, b.AsOf, len(b.Prices))
	}
	return fmt.Sprintf("%s (%d models)", b.Origin, len(b.Prices))
}

// BuiltinBook is the shipped price book.
func BuiltinBook() (Book, error) {
	p, asOf, err := ParseBook("built-in price book", builtinBook)
	return Book{Prices: p, Origin: "built-in", AsOf: asOf}, err
}

// LoadBook reads a user's price book (quickstarted's format: no date).
func LoadBook(path string) (Book, error) {
	p, err := LoadPrices(path)
	return Book{Prices: p, Origin: path}, err
}

// ParseBook parses a dated book: {"as_of": "YYYY-MM-DD", "about": "...",
// "models": {MODEL: {rates..., "source": URL, "note": "..."}}}. Every
// model must name its source: a rate nobody can check is not shipped.
func ParseBook(path string, b []byte) (Prices, string, error) {
	var raw struct {
		AsOf   string                    `json:"as_of"`
		About  string                    `json:"about"`
		Models map[string]map[string]any `json:"models"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, "", &PricesError{Path: path, Message: "not a dated price book: " + err.Error()}
	}
	if _, err := time.Parse("2006-01-02", raw.AsOf); err != nil {
		return nil, "", &PricesError{Path: path, At: "as_of", Message: "must be a date, YYYY-MM-DD"}
	}
	if len(raw.Models) == 0 {
		return nil, "", &PricesError{Path: path, At: "models", Message: "names no model"}
	}
	p := Prices{}
	for model, fields := range raw.Models {
		r, err := parseRate(path, "models."+model, fields, map[string]bool{"source": true, "note": true})
		if err != nil {
			return nil, "", err
		}
		if src, _ := fields["source"].(string); src == "" {
			return nil, "", &PricesError{Path: path, At: "models." + model + ".source", Message: "every rate needs the page it was read from"}
		}
		p[model] = r
	}
	return p, raw.AsOf, nil
}
