//! A model as extensions and RPC clients see it: exactly the documented
//! keys, numbers as JavaScript prints them.

use pi_ai::Model;
use serde_json::{Value, json};

/// A number as JavaScript prints it (`0`, not `0.0`).
pub fn num(f: f64) -> Value {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 { json!(f as i64) } else { json!(f) }
}

/// A model as RPC shows it: `id`, `name`, `api`, `provider`, `baseUrl`,
/// `reasoning`, `input`, `cost`, `contextWindow`, `maxTokens` (no headers).
pub fn model_json(m: &Model) -> Value {
    json!({
        "id": m.id, "name": m.name, "api": m.api, "provider": m.provider, "baseUrl": m.base_url,
        "reasoning": m.reasoning, "input": m.input,
        "cost": {"input": num(m.cost.input), "output": num(m.cost.output), "cacheRead": num(m.cost.cache_read),
            "cacheWrite": num(m.cost.cache_write)},
        "contextWindow": m.context_window, "maxTokens": m.max_tokens,
    })
}
