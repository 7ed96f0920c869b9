//! What a run's tokens cost, from the providers' list prices. A model not
//! in the table has no cost (shown as unknown), never a guessed one; models
//! served on this machine cost nothing.

use super::Usage;

/// US dollars per million tokens: (model name prefix, input, output). The
/// longest matching prefix wins. List prices as published in November 2026;
/// batch and cache discounts are not modelled.
const PRICES_USD_PER_MTOK: &[(&str, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-6", 5.0, 25.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-haiku-4", 1.0, 5.0),
    ("claude-3-5-haiku", 0.8, 4.0),
    ("gpt-5-nano", 0.05, 0.4),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5", 1.25, 10.0),
    ("gpt-4.1-nano", 0.1, 0.4),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("gpt-4o", 2.5, 10.0),
    ("o4-mini", 1.1, 4.4),
    ("o3", 2.0, 8.0),
];

/// Providers that run on the person's own machine.
const LOCAL_PROVIDERS: &[&str] = &["ollama", "llamacpp", "vllm", "lmstudio"];

/// The cost of `usage` on `model` from `provider`, when it is known.
pub fn cost_usd(provider: &str, model: &str, usage: Usage) -> Option<f64> {
    if LOCAL_PROVIDERS.contains(&provider) {
        return Some(0.0);
    }
    let (_, input, output) = PRICES_USD_PER_MTOK
        .iter()
        .filter(|(prefix, _, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _, _)| prefix.len())?;
    #[allow(clippy::cast_precision_loss)] // token counts stay far below 2^52
    let dollars =
        (usage.input_tokens as f64 * input + usage.output_tokens as f64 * output) / 1_000_000.0;
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
        };
        let cases = [
            ("anthropic", "claude-sonnet-4-20250514", Some(0.045)),
            ("anthropic", "claude-opus-4-6", Some(0.075)),
            ("anthropic", "claude-opus-4-1", Some(0.225)),
            ("openai", "gpt-4o-mini", Some(0.0021)),
            ("openai", "gpt-4o", Some(0.035)),
            ("ollama", "llama3.2", Some(0.0)),
            ("anthropic", "claude-future-9", None),
        ];
        for (provider, model, expected) in cases {
            let got = cost_usd(provider, model, usage);
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-9, "{model}: {g} != {e}"),
                _ => assert_eq!(got, expected, "{model}"),
            }
        }
    }
}
