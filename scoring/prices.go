// Model prices: the defaults, parsing adkproxy.prices entries, and what a
// call's usage costs.

package scoring

import (
	"math"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// Price is what a model costs in US dollars per 1,000,000 tokens. Input is
// the prompt tokens that were not served from a cache (Gemini's prompt
// count includes the cached ones), CachedInput the cached ones, Output the
// candidates and the thoughts (Gemini bills thinking as output). Tool-use
// prompt tokens (built-in tools such as Google Search) are billed as input.
//
// Some models cost more for long prompts: when LongContext is set and a
// call's prompt has more than LongContext.Above tokens, the whole call is
// billed at the LongContext prices.
//
// In adkproxy.prices a price is written
//
//	"gemini-2.5-pro": {"input": 1.25, "cached_input": 0.125, "output": 10,
//	                   "long_context": {"above": 200000, "input": 2.5, "cached_input": 0.25, "output": 15}}
type Price struct {
	Input       float64    `json:"input"`
	CachedInput float64    `json:"cached_input"`
	Output      float64    `json:"output"`
	LongContext *LongPrice `json:"long_context,omitempty"`
}

// LongPrice is the price of calls whose prompt exceeds Above tokens.
type LongPrice struct {
	Above       int64   `json:"above"`
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	Output      float64 `json:"output"`
}

// pricesAsOf is the date of the DefaultPrices.
const pricesAsOf = "2025-12"

// DefaultPrices are list prices of the Gemini Developer API (paid tier,
// standard, not batch; text, image and video input) in USD per 1M tokens,
// as published on https://ai.google.dev/gemini-api/docs/pricing as of
// pricesAsOf. They were written down from that page, not fetched by
// adkproxy: prices change, Vertex AI and audio input are priced
// differently, and free-tier usage costs nothing. Check them before relying
// on cost_usd, and override or add models under "adkproxy": {"prices": …}.
// A model name is looked up exactly, then by the longest entry that is a
// prefix of it followed by "-" (gemini-2.5-flash-001 → gemini-2.5-flash),
// then "*" when configured; versions of a model priced differently (older
// previews) need their own entry.
func DefaultPrices() map[string]Price {
	return map[string]Price{
		"gemini-3-pro-preview": {Input: 2.00, CachedInput: 0.20, Output: 12.00,
			LongContext: &LongPrice{Above: 200_000, Input: 4.00, CachedInput: 0.40, Output: 18.00}},
		"gemini-3-flash-preview": {Input: 0.50, CachedInput: 0.05, Output: 3.00},
		"gemini-2.5-pro": {Input: 1.25, CachedInput: 0.125, Output: 10.00,
			LongContext: &LongPrice{Above: 200_000, Input: 2.50, CachedInput: 0.25, Output: 15.00}},
		"gemini-2.5-flash":      {Input: 0.30, CachedInput: 0.03, Output: 2.50},
		"gemini-2.5-flash-lite": {Input: 0.10, CachedInput: 0.01, Output: 0.40},
		"gemini-2.0-flash":      {Input: 0.10, CachedInput: 0.025, Output: 0.40},
		// 2.0 Flash-Lite has no context caching: cached tokens cost as input.
		"gemini-2.0-flash-lite": {Input: 0.075, CachedInput: 0.075, Output: 0.30},
	}
}

// priceFor finds the price of a model (see DefaultPrices for the lookup).
func priceFor(prices map[string]Price, model string) (Price, bool) {
	model = strings.TrimPrefix(model, "models/")
	if p, ok := prices[model]; ok {
		return p, true
	}
	best := ""
	for name := range prices {
		if name != "*" && len(name) > len(best) && strings.HasPrefix(model, name+"-") {
			best = name
		}
	}
	if best != "" {
		return prices[best], true
	}
	p, ok := prices["*"]
	return p, ok
}

// Cost is the price of one model call in USD.
func (p Price) Cost(u Usage) float64 {
	in, cached, out := p.Input, p.CachedInput, p.Output
	if lc := p.LongContext; lc != nil && u.Prompt > lc.Above {
		in, cached, out = lc.Input, lc.CachedInput, lc.Output
	}
	fresh := max(u.Prompt-u.Cached, 0)
	return (float64(fresh)*in + float64(u.Cached)*cached + float64(u.ToolUse)*in +
		float64(u.Candidates+u.Thoughts)*out) / 1e6
}

func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

func parsePrice(n pyjson.Value) (Price, error) {
	o, err := n.Object()
	if err != nil {
		return Price{}, err
	}
	if err := n.CheckKeys(o, "input", "cached_input", "output", "long_context"); err != nil {
		return Price{}, err
	}
	var p Price
	get := func(o *pyjson.Object, n pyjson.Value, key string, required bool, dst *float64) error {
		c, ok := n.Field(o, key)
		if !ok {
			if required {
				return c.Errorf("missing (USD per 1M tokens)")
			}
			return nil
		}
		f, err := c.Number()
		if err != nil {
			return err
		}
		if f < 0 || !finite(f) {
			return c.Errorf("must be ≥ 0, got %g", f)
		}
		*dst = f
		return nil
	}
	if err := get(o, n, "input", true, &p.Input); err != nil {
		return p, err
	}
	p.CachedInput = p.Input
	if err := get(o, n, "cached_input", false, &p.CachedInput); err != nil {
		return p, err
	}
	if err := get(o, n, "output", true, &p.Output); err != nil {
		return p, err
	}
	if lc, ok := n.Field(o, "long_context"); ok && lc.V != nil {
		lo, err := lc.Object()
		if err != nil {
			return p, err
		}
		if err := lc.CheckKeys(lo, "above", "input", "cached_input", "output"); err != nil {
			return p, err
		}
		l := &LongPrice{}
		var above float64
		if err := get(lo, lc, "above", true, &above); err != nil {
			return p, err
		}
		l.Above = int64(above)
		if err := get(lo, lc, "input", true, &l.Input); err != nil {
			return p, err
		}
		l.CachedInput = l.Input
		if err := get(lo, lc, "cached_input", false, &l.CachedInput); err != nil {
			return p, err
		}
		if err := get(lo, lc, "output", true, &l.Output); err != nil {
			return p, err
		}
		p.LongContext = l
	}
	return p, nil
}
