//! `--list-models [search]`: the table of available models, filtered by a
//! fuzzy search as the reference filters it.

use pi_config::ModelEntry;

use crate::text;
use pi_runtime::model_select::available;

/// Whether `token` (lower case) occurs in `text` (lower case) in order, not
/// necessarily together.
fn in_order(token: &str, text: &str) -> bool {
    let mut rest = text.chars();
    token.chars().all(|c| rest.any(|t| t == c))
}

/// `token` with its letters and digits swapped (`4o` → `o4`, `gpt5` → `5gpt`)
/// when it is letters then digits or digits then letters.
fn swapped(token: &str) -> Option<String> {
    let split = token.find(|c: char| c.is_ascii_digit() != token.starts_with(|d: char| d.is_ascii_digit()))?;
    let (head, tail) = token.split_at(split);
    let alpha = |s: &str| s.chars().all(|c| c.is_ascii_alphabetic());
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    ((alpha(head) && digits(tail)) || (digits(head) && alpha(tail))).then(|| format!("{tail}{head}"))
}

/// Whether every whitespace-separated token of `search` matches
/// `provider/id`, in order, ignoring case (a token of letters and digits
/// also matches with the two swapped).
pub fn fuzzy_matches(search: &str, entry: &ModelEntry) -> bool {
    let text = format!("{}/{}", entry.provider, entry.id).to_lowercase();
    search
        .to_lowercase()
        .split_whitespace()
        .all(|token| in_order(token, &text) || swapped(token).is_some_and(|other| in_order(&other, &text)))
}

/// A token count as the table shows it: `131.1K`, `128K`, `1M`, `1.0M`.
fn human(n: u64) -> String {
    let short = |v: f64, unit: &str| {
        if v.fract() == 0.0 { format!("{}{unit}", v as u64) } else { format!("{v:.1}{unit}") }
    };
    if n >= 1_000_000 {
        short(n as f64 / 1_000_000.0, "M")
    } else if n >= 1000 {
        short(n as f64 / 1000.0, "K")
    } else {
        n.to_string()
    }
}

/// By provider, then id, in JavaScript's `localeCompare` order (ICU root
/// collation: `~x` before `a`, `MiniMax` between `kimi` and `qwen`).
fn sort(rows: &mut [&ModelEntry]) {
    match icu_collator::CollatorBorrowed::try_new(Default::default(), Default::default()) {
        Ok(c) => rows.sort_by(|a, b| c.compare(&a.provider, &b.provider).then_with(|| c.compare(&a.id, &b.id))),
        Err(_) => rows.sort_by(|a, b| (&a.provider, &a.id).cmp(&(&b.provider, &b.id))),
    }
}

/// The `--list-models` output: the table of available models (sorted by
/// provider, then id), optionally filtered by `search`; or the reference's
/// words when there is none.
pub fn list(models: &[ModelEntry], search: Option<&str>) -> String {
    let mut rows: Vec<&ModelEntry> = available(models);
    if rows.is_empty() {
        return format!("{}\n", text::no_models_available());
    }
    if let Some(s) = search {
        rows.retain(|m| fuzzy_matches(s, m));
        if rows.is_empty() {
            return format!("{}\n", text::no_models_matching(s));
        }
    }
    sort(&mut rows);
    let mut table: Vec<[String; 6]> =
        vec![["provider", "model", "context", "max-out", "thinking", "images"].map(String::from)];
    for m in rows {
        table.push([
            m.provider.clone(),
            m.id.clone(),
            human(m.context_window),
            human(m.max_tokens),
            if m.reasoning { "yes" } else { "no" }.into(),
            if m.input.iter().any(|i| i == "image") { "yes" } else { "no" }.into(),
        ]);
    }
    let widths: Vec<usize> = (0..6).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in &table {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(&cells.join("  "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(provider: &str, id: &str) -> ModelEntry {
        let mut m = pi_config::builtin_models().remove(0);
        m.provider = provider.into();
        m.id = id.into();
        m.name = id.into();
        m.api_key = Some("x".into());
        m
    }

    #[test]
    fn table_format() {
        let mut m = entry("mock", "mock-1");
        m.context_window = 128_000;
        m.max_tokens = 16_384;
        m.reasoning = false;
        m.input = vec!["text".into()];
        assert_eq!(
            list(&[m], None),
            "provider  model   context  max-out  thinking  images\nmock      mock-1  128K     16.4K    no        no    \n"
        );
        assert_eq!(list(&[], None), format!("{}\n", text::no_models_available()));
    }

    #[test]
    fn token_counts() {
        assert_eq!(human(999), "999");
        assert_eq!(human(131_072), "131.1K");
        assert_eq!(human(1_000_000), "1M");
        assert_eq!(human(1_047_576), "1.0M");
        assert_eq!(human(2_000_000), "2M");
    }

    #[test]
    fn fuzzy_search_as_the_reference() {
        let haiku = entry("anthropic", "claude-haiku-4-5");
        let llama = entry("groq", "llama-3.1-8b-instant");
        let mini = entry("openai", "gpt-4o-mini");
        for (search, m, expected) in [
            ("haiku", &haiku, true),
            ("ANTHROPIC", &haiku, true),
            ("antclaude", &haiku, true),
            ("4o", &haiku, true), // swapped: o…4
            ("4.5", &haiku, false),
            ("groq/llama", &llama, true),
            ("llama groq", &llama, true),
            ("instantgroq", &llama, false),
            ("gpt4o", &mini, true),
            ("mini4o", &mini, false),
            ("  ", &mini, true),
            ("xyz 4", &mini, false),
        ] {
            assert_eq!(fuzzy_matches(search, m), expected, "{search:?} on {}", m.id);
        }
        assert_eq!(swapped("4o").as_deref(), Some("o4"));
        assert_eq!(swapped("gpt5").as_deref(), Some("5gpt"));
        assert_eq!(swapped("gpt-5"), None);
        assert_eq!(swapped("abc"), None);
    }

    #[test]
    fn search_filters_and_says_when_nothing_matches() {
        let models = vec![entry("b", "z-1"), entry("a", "y-2"), entry("b", "a-3")];
        let out = list(&models, Some("b"));
        let rows: Vec<&str> = out.lines().skip(1).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
        assert_eq!(rows, ["a-3", "z-1"]);
        assert_eq!(list(&models, Some("qqq")), "No models matching \"qqq\"\n");
        let models = vec![entry("p", "qwen-1"), entry("p", "MiniMax-1"), entry("p", "~a/latest"), entry("p", "kimi")];
        let out = list(&models, None);
        let rows: Vec<&str> = out.lines().skip(1).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
        assert_eq!(rows, ["~a/latest", "kimi", "MiniMax-1", "qwen-1"]);
    }
}
