//! What a run's tokens cost, from the providers' list prices. A model not
//! in the table has no cost (shown as unknown), never a guessed one; models
//! served on this machine cost nothing. The config's `[prices]` adds models
//! or overrides these defaults.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Usage;

/// One model's list prices, US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Price {
    /// Input tokens that are not cached.
    pub input: f64,
    pub output: f64,
    /// Input tokens read from the prompt cache; the input price if not given.
    pub cache_read: Option<f64>,
    /// Input tokens written to the prompt cache; the input price if not given.
    pub cache_write: Option<f64>,
}

const fn price(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Price {
    Price {
        input,
        output,
        cache_read: Some(cache_read),
        cache_write: Some(cache_write),
    }
}

/// (model name prefix, price); the longest matching prefix wins. List prices
/// as published in November 2026. Anthropic bills cache reads at 0.1× and
/// five-minute cache writes at 1.25× the input price; OpenAI bills cached
/// input at its own discount and writes nothing extra. Batch discounts are
/// not modelled.
const DEFAULT_PRICES: &[(&str, Price)] = &[
    ("claude-opus-4-5", price(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-6", price(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4", price(15.0, 75.0, 1.5, 18.75)),
    ("claude-sonnet-4", price(3.0, 15.0, 0.3, 3.75)),
    ("claude-3-7-sonnet", price(3.0, 15.0, 0.3, 3.75)),
    ("claude-3-5-sonnet", price(3.0, 15.0, 0.3, 3.75)),
    ("claude-haiku-4", price(1.0, 5.0, 0.1, 1.25)),
    ("claude-3-5-haiku", price(0.8, 4.0, 0.08, 1.0)),
    ("gpt-5-nano", price(0.05, 0.4, 0.005, 0.05)),
    ("gpt-5-mini", price(0.25, 2.0, 0.025, 0.25)),
    ("gpt-5", price(1.25, 10.0, 0.125, 1.25)),
    ("gpt-4.1-nano", price(0.1, 0.4, 0.025, 0.1)),
    ("gpt-4.1-mini", price(0.4, 1.6, 0.1, 0.4)),
    ("gpt-4.1", price(2.0, 8.0, 0.5, 2.0)),
    ("gpt-4o-mini", price(0.15, 0.6, 0.075, 0.15)),
    ("gpt-4o", price(2.5, 10.0, 1.25, 2.5)),
    ("o4-mini", price(1.1, 4.4, 0.275, 1.1)),
    ("o3", price(2.0, 8.0, 0.5, 2.0)),
];

/// Providers that run on the person's own machine.
const LOCAL_PROVIDERS: &[&str] = &["ollama", "llamacpp", "vllm", "lmstudio"];

/// The price of `model`: the longest prefix in `config` or the defaults,
/// the config's winning a tie.
pub fn price_of(model: &str, config: &BTreeMap<String, Price>) -> Option<Price> {
    let configured = config.iter().map(|(p, price)| (p.as_str(), *price, 1));
    let defaults = DEFAULT_PRICES.iter().map(|(p, price)| (*p, *price, 0));
    configured
        .chain(defaults)
        .filter(|(prefix, _, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _, rank)| (prefix.len(), *rank))
        .map(|(_, price, _)| price)
}

/// The cost of `usage` on `model` from `provider`, when it is known.
pub fn cost_usd(
    provider: &str,
    model: &str,
    usage: Usage,
    config: &BTreeMap<String, Price>,
) -> Option<f64> {
    if LOCAL_PROVIDERS.contains(&provider) {
        return Some(0.0);
    }
    let price = price_of(model, config)?;
    let read = usage.cache_read_tokens;
    let write = usage.cache_write_tokens;
    let plain = usage.input_tokens.saturating_sub(read + write);
    #[allow(clippy::cast_precision_loss)] // token counts stay far below 2^52
    let dollars = (plain as f64 * price.input
        + read as f64 * price.cache_read.unwrap_or(price.input)
        + write as f64 * price.cache_write.unwrap_or(price.input)
        + usage.output_tokens as f64 * price.output)
        / 1_000_000.0;
    Some(dollars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_cost_their_list_price_and_unknown_ones_nothing_guessed() {
        let usage = Usage {
            input_tokens: 10_000,
            output_tokens: 1_000,
            ..Usage::default()
        };
        let cached = Usage {
            cache_read_tokens: 8_000,
            cache_write_tokens: 1_000,
            ..usage
        };
        let mut config = BTreeMap::new();
        config.insert(
            "my-model".to_owned(),
            Price {
                input: 1.0,
                output: 2.0,
                cache_read: None,
                cache_write: None,
            },
        );
        config.insert("gpt-4o".to_owned(), price(1.0, 1.0, 0.5, 1.0));
        let cases = [
            ("anthropic", "claude-sonnet-4-20250514", usage, Some(0.045)),
            ("anthropic", "claude-opus-4-6", usage, Some(0.075)),
            // 1,000 plain at 5, 8,000 read at 0.5, 1,000 written at 6.25, 1,000 out at 25.
            ("anthropic", "claude-opus-4-6", cached, Some(0.04025)),
            ("anthropic", "claude-opus-4-1", usage, Some(0.225)),
            ("openai", "gpt-4o-mini", usage, Some(0.0021)),
            // The config's gpt-4o wins over the default, and not over gpt-4o-mini.
            ("openai", "gpt-4o", usage, Some(0.011)),
            ("openai", "my-model-v2", cached, Some(0.012)),
            ("ollama", "llama3.2", usage, Some(0.0)),
            ("anthropic", "claude-future-9", usage, None),
        ];
        for (provider, model, usage, expected) in cases {
            let got = cost_usd(provider, model, usage, &config);
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-9, "{model}: {g} != {e}"),
                _ => assert_eq!(got, expected, "{model}"),
            }
        }
    }
}
