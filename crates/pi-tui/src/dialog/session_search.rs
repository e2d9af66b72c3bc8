//! Searching the session picker, as the reference does: words match a
//! session's name, id, message text or folder (case-insensitive, each word
//! in one field); `"a phrase"` matches exactly (spaces folded); `re:<pattern>`
//! is a case-insensitive regular expression. A match in the name ranks
//! first, then one in the id, messages or folder, then a scattered (fuzzy)
//! match in the name or folder; ties keep the most recent first.

use pi_agent::session::SessionInfo;

/// Rank weight of a tier (tiers dominate fuzzy scores).
const TIER_WEIGHT: i64 = 1_000_000;
const TIER_NAME: i64 = 0;
const TIER_TEXT: i64 = 1;
const TIER_FUZZY: i64 = 2;

/// A parsed query.
enum Query {
    /// Words and phrases, all of which must match.
    Tokens(Vec<(bool, String)>),
    /// A regular expression (`None`: an invalid or empty one matches nothing).
    Regex(Option<regex::Regex>),
}

fn fold(s: &str) -> String {
    s.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

fn parse(query: &str) -> Query {
    let q = query.trim();
    if let Some(p) = q.strip_prefix("re:") {
        let p = p.trim();
        let re = (!p.is_empty()).then(|| regex::RegexBuilder::new(p).case_insensitive(true).build().ok()).flatten();
        return Query::Regex(re);
    }
    if q.matches('"').count() % 2 == 1 {
        // Unbalanced quotes: plain words.
        return Query::Tokens(q.split_whitespace().map(|w| (false, w.to_string())).collect());
    }
    let mut tokens = Vec::new();
    for (i, part) in q.split('"').enumerate() {
        if i % 2 == 1 {
            let p = fold(part);
            if !p.is_empty() {
                tokens.push((true, p));
            }
        } else {
            tokens.extend(part.split_whitespace().map(|w| (false, w.to_string())));
        }
    }
    Query::Tokens(tokens)
}

/// The score of one literal (already lower-cased, folded for phrases) value.
fn literal(s: &SessionInfo, value: &str, phrase: bool) -> Option<i64> {
    let norm = |t: &str| if phrase { fold(t) } else { t.to_lowercase() };
    let name = norm(s.name.as_deref().unwrap_or(""));
    if name.contains(value) {
        return Some(TIER_NAME * TIER_WEIGHT + (name.len() as i64 - value.len() as i64));
    }
    let hit = s.id.to_lowercase().contains(value) || norm(&s.all_text).contains(value) || norm(&s.cwd).contains(value);
    hit.then_some(TIER_TEXT * TIER_WEIGHT)
}

fn word(s: &SessionInfo, w: &str) -> Option<i64> {
    if let Some(score) = literal(s, &w.to_lowercase(), false) {
        return Some(score);
    }
    [s.name.as_deref().unwrap_or(""), s.cwd.as_str()]
        .iter()
        .filter_map(|field| crate::complete::fuzzy_score(w, field))
        .max()
        .map(|best| TIER_FUZZY * TIER_WEIGHT - best.min(TIER_WEIGHT - 1))
}

/// The rank of `s` for `query` (lower is better), `None` when it does not match.
fn score(s: &SessionInfo, q: &Query) -> Option<i64> {
    match q {
        Query::Regex(None) => None,
        Query::Regex(Some(re)) => {
            if s.name.as_deref().is_some_and(|n| re.is_match(n)) {
                Some(TIER_NAME)
            } else {
                let hit = re.is_match(&s.id) || re.is_match(&s.all_text) || re.is_match(&s.cwd);
                hit.then_some(TIER_TEXT * TIER_WEIGHT)
            }
        }
        Query::Tokens(tokens) => tokens.iter().try_fold(0, |total, (phrase, v)| {
            let one = if *phrase { literal(s, v, true) } else { word(s, v) };
            one.map(|x| total + x)
        }),
    }
}

/// The indices of `sessions` that match `query`: in the given order when
/// `keep_order`, else best first (ties: the order given, most recent first).
pub(crate) fn filter(sessions: &[&SessionInfo], query: &str, keep_order: bool) -> Vec<usize> {
    let q = parse(query);
    let mut hits: Vec<(i64, usize)> =
        sessions.iter().enumerate().filter_map(|(i, s)| score(s, &q).map(|sc| (sc, i))).collect();
    if !keep_order {
        hits.sort_by_key(|&(sc, i)| (sc, i));
    }
    hits.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(id: &str, name: Option<&str>, text: &str) -> SessionInfo {
        SessionInfo {
            path: format!("/s/{id}.jsonl").into(),
            id: id.into(),
            cwd: "/home/u/proj".into(),
            name: name.map(String::from),
            first_message: Some(text.into()),
            all_text: text.into(),
            message_count: 1,
            created: String::new(),
            modified_ms: 0,
            parent_session: None,
        }
    }

    #[test]
    fn names_rank_before_text_phrases_are_exact_and_regexes_work() {
        let list = [s("id1", None, "fix the parser bug"), s("id2", Some("parser work"), "hello"), s("id3", None, "x")];
        let refs: Vec<&SessionInfo> = list.iter().collect();
        assert_eq!(filter(&refs, "parser", false), [1, 0], "a name match first");
        assert_eq!(filter(&refs, "parser", true), [0, 1], "recent order kept");
        assert_eq!(filter(&refs, "\"the  parser\"", false), [0]);
        assert_eq!(filter(&refs, "\"parser the\"", false), Vec::<usize>::new());
        assert_eq!(filter(&refs, "fix bug", false), [0], "every word must match");
        assert_eq!(filter(&refs, "re:PARS.R\\s+bug", false), [0]);
        assert_eq!(filter(&refs, "re:(", false), Vec::<usize>::new(), "an invalid regex matches nothing");
        assert_eq!(filter(&refs, "ID3", false), [2], "ids match");
        assert_eq!(filter(&refs, "prj", false), [0, 1, 2], "scattered letters of the folder");
        assert_eq!(filter(&refs, "\"unbalanced", false), Vec::<usize>::new());
    }
}
