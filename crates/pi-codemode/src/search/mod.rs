//! Tool search: Okapi BM25 over tool metadata, shared by `tool_search` and
//! scripts' `searchTools()`.
//!
//! The description (with the schema's property names and descriptions) is the
//! BM25 text; the name and the namespace are separate fields:
//! - a tool that matches more of the query's terms ranks above one that
//!   matches fewer, whatever their scores;
//! - a term in the name counts three times its IDF, more than any number of
//!   mentions in the description; a term in the namespace counts half;
//! - a tool whose whole local name (after the last `__`) is in the query gets
//!   a bonus worth one more match of every term;
//! - a query that is exactly a tool's name (or its suffix after `__`) ranks it first.
//!
//! Only positive scores match; ties keep document order.

mod document;
mod tokenize;

use std::collections::{BTreeMap, BTreeSet};

pub use document::{SearchDocument, document};
pub use tokenize::tokenize;

use crate::text::{BM25_B, BM25_K1, NAME_WEIGHT, NAMESPACE_WEIGHT};

struct Indexed<'a> {
    name: &'a str,
    name_terms: BTreeSet<String>,
    local_terms: BTreeSet<String>,
    counts: BTreeMap<String, usize>,
    length: usize,
    namespace_terms: BTreeSet<String>,
}

fn index(doc: &SearchDocument) -> Indexed<'_> {
    let mut counts = BTreeMap::new();
    for t in tokenize(&doc.text) {
        *counts.entry(t).or_insert(0) += 1;
    }
    let local = doc.name.rsplit("__").next().unwrap_or(&doc.name);
    Indexed {
        name: &doc.name,
        name_terms: tokenize(&doc.name).into_iter().collect(),
        local_terms: tokenize(local).into_iter().collect(),
        length: counts.values().sum(),
        counts,
        namespace_terms: tokenize(&doc.namespace_text).into_iter().collect(),
    }
}

/// Lowercase, with characters invalid in identifiers as `_`.
fn normalize_name(name: &str) -> String {
    crate::js::trim(name)
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$' { c } else { '_' })
        .collect()
}

fn is_exact(query: &str, name: &str) -> bool {
    let n = normalize_name(name);
    n == query || n.ends_with(&format!("__{query}"))
}

/// The names of the best `limit` documents for `query`, best first.
pub fn rank(query: &str, documents: &[SearchDocument], limit: usize) -> Vec<String> {
    let terms: BTreeSet<String> = tokenize(query).into_iter().collect();
    // The reference keeps the query's terms in first-seen order; the order
    // only matters for float rounding of sums, so it is kept too.
    let mut ordered: Vec<String> = Vec::new();
    for t in tokenize(query) {
        if !ordered.contains(&t) {
            ordered.push(t);
        }
    }
    if terms.is_empty() || documents.is_empty() || limit == 0 {
        return Vec::new();
    }
    let indexed: Vec<Indexed> = documents.iter().map(index).collect();
    let n = indexed.len() as f64;
    let average = indexed.iter().map(|d| d.length as f64).sum::<f64>() / n;
    let average = if average == 0.0 { 1.0 } else { average };
    let idf: Vec<f64> = ordered
        .iter()
        .map(|t| {
            let df = indexed
                .iter()
                .filter(|d| d.name_terms.contains(t) || d.counts.contains_key(t) || d.namespace_terms.contains(t))
                .count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let bonus: f64 = idf.iter().sum();
    let exact_query = normalize_name(query);
    let mut matches: Vec<(usize, f64, usize, bool)> = Vec::new();
    for (at, d) in indexed.iter().enumerate() {
        let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * d.length as f64 / average);
        let (mut score, mut covered) = (0.0, 0);
        for (t, idf) in ordered.iter().zip(&idf) {
            let count = *d.counts.get(t).unwrap_or(&0) as f64;
            let weight = if d.name_terms.contains(t) { NAME_WEIGHT } else { 0.0 }
                + if d.namespace_terms.contains(t) { NAMESPACE_WEIGHT } else { 0.0 }
                + count * (BM25_K1 + 1.0) / (count + norm);
            if weight > 0.0 {
                covered += 1;
            }
            score += idf * weight;
        }
        if score == 0.0 {
            continue;
        }
        if !d.local_terms.is_empty() && d.local_terms.iter().all(|t| terms.contains(t)) {
            score += bonus;
        }
        matches.push((at, score, covered, is_exact(&exact_query, d.name)));
    }
    // A stable sort keeps document order among ties.
    matches.sort_by(|a, b| {
        b.3.cmp(&a.3).then(b.2.cmp(&a.2)).then(b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal))
    });
    matches.into_iter().take(limit).map(|(at, ..)| indexed[at].name.to_string()).collect()
}

#[cfg(test)]
mod tests;
