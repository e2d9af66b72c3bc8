//! The model's context from the active branch, as the reference builds it:
//! the latest compaction on the branch stands for everything before its
//! first kept entry (its system checkpoint, then its summary), the latest
//! `context_edit` of an entry omits or replaces it, and the model and
//! thinking level are the latest ones chosen on the branch.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use compact_str::CompactString as ShortText;

use super::message_line::message_in_line;
use super::stored::LineReader;
use super::{Entry, Session};
use crate::messages::{AgentMessage, AgentOnly, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage};

/// What the active branch says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionContext {
    /// The context messages, system messages included (they do not go to
    /// the model as messages).
    pub messages: Vec<AgentMessage>,
    /// The entry each message came from (empty from
    /// [`Session::take_context`]).
    pub entry_ids: Vec<ShortText>,
    /// The latest `model_change` on the branch: (provider, model id).
    pub model: Option<(String, String)>,
    /// The latest `thinking_level_change` on the branch.
    pub thinking_level: Option<String>,
}

/// Milliseconds of an ISO entry timestamp (0 when it does not parse).
fn millis(iso: &Value) -> i64 {
    iso.as_str()
        .and_then(|s| humantime::parse_rfc3339_weak(s.trim_end_matches('Z')).ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The context message an entry (as a value) stands for, if any.
pub(crate) fn message_of_value(e: &Value) -> Option<AgentMessage> {
    match e["type"].as_str()? {
        // (`compaction_summary` is the compaction's own message, made above.)
        "message" | "compaction_summary" => AgentMessage::deserialize(&e["message"]).ok(),
        "custom_message" => Some(AgentMessage::Agent(AgentOnly::Custom(CustomMessage {
            custom_type: e["customType"].as_str().unwrap_or_default().to_string(),
            content: e["content"].clone(),
            display: e["display"].as_bool().unwrap_or(false),
            details: e.get("details").cloned().map(Box::new),
            timestamp: millis(&e["timestamp"]),
        }))),
        "branch_summary" => Some(AgentMessage::Agent(AgentOnly::BranchSummary(BranchSummaryMessage {
            summary: e["summary"].as_str().unwrap_or_default().to_string(),
            from_id: e["fromId"].as_str().map(String::from),
            timestamp: millis(&e["timestamp"]),
        }))),
        _ => None,
    }
}

/// The context message an entry stands for, if any (messages are read from
/// their line without an intermediate value).
pub(crate) fn message_of(e: &Entry) -> Option<AgentMessage> {
    message_in(e, &e.line())
}

/// [`message_of`] for an entry whose line is `line`.
fn message_in(e: &Entry, line: &str) -> Option<AgentMessage> {
    match e.kind() {
        "message" => message_in_line(line),
        "custom_message" | "branch_summary" => message_of_value(&serde_json::from_str(line).unwrap_or(Value::Null)),
        _ => None,
    }
}

fn is_system(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::Agent(AgentOnly::System(_)))
}

/// Replace a message's content (a string becomes one text block where the
/// role needs blocks).
fn replaced(mut m: Value, replacement: &Value) -> Value {
    let blocks = matches!(m["role"].as_str(), Some("assistant" | "toolResult"));
    m["content"] = match replacement {
        Value::String(s) if blocks => serde_json::json!([{"type": "text", "text": s}]),
        other => other.clone(),
    };
    m
}

/// The messages being gathered, and the edits that apply to them.
struct Gather {
    out: SessionContext,
    edits: HashMap<String, Value>,
    /// Whether `out.entry_ids` is filled.
    ids: bool,
}

/// The message of `e` as the context holds it (as edited), unless it is a
/// system message and `no_system` is set; lines left in the file are read
/// through `lines`.
fn message_for(
    e: &Entry,
    no_system: bool,
    edits: &HashMap<String, Value>,
    lines: &mut LineReader,
) -> Option<AgentMessage> {
    let message = match edits.get(e.id()) {
        Some(Value::Null) => return None,
        Some(r) => {
            let mut v = e.value();
            if e.kind() == "message" {
                v["message"] = replaced(v["message"].take(), r);
            } else {
                v["content"] = r.clone();
            }
            message_of_value(&v)
        }
        None => message_in(e, &e.line_with(lines)),
    };
    message.filter(|m| !(no_system && is_system(m)))
}

/// Whether the messages read with the file can serve as the slots of
/// `work`: each wanted entry has its line's slot, in increasing order.
fn by_line_fits(work: &[Wanted<'_>], pre: &super::load::Preparsed) -> bool {
    let line =
        |w: &Wanted<'_>| pre.entry_line.get(w.2 as usize).map(|&l| l as usize).filter(|&l| l < pre.by_line.len());
    let mut last = None;
    work.iter().all(|w| match line(w) {
        Some(l) if last.is_none_or(|p| l > p) => {
            last = Some(l);
            true
        }
        _ => false,
    })
}

/// Run `one` over `work` in up to [`super::load::readers`] shares side by
/// side. Each share gets the part of `slots` its items' slots fall in
/// (`slot_of`, increasing), the index of its first item, and the slot index
/// its part starts at.
fn fill_side_by_side<'a>(
    work: &[Wanted<'a>],
    slot_of: &[usize],
    slots: &mut [Option<AgentMessage>],
    one: impl Fn(&[Wanted<'a>], &mut [Option<AgentMessage>], usize, usize) + Sync,
) {
    let readers = super::load::readers();
    if work.len() < super::load::PARALLEL_CONTEXT_MIN_ENTRIES || readers < 2 {
        one(work, slots, 0, 0);
        return;
    }
    let share = work.len().div_ceil(readers);
    // The slots are cut where each share's first item's slot is.
    let mut parts = Vec::new();
    let (mut rest, mut base, mut first) = (slots, 0, 0);
    while first < work.len() {
        let next = (first + share).min(work.len());
        let end = slot_of.get(next).copied().unwrap_or(base + rest.len()).clamp(base, base + rest.len());
        let (mine, after) = std::mem::take(&mut rest).split_at_mut(end - base);
        parts.push((first, next, base, mine));
        (rest, base, first) = (after, end, next);
    }
    let one = &one;
    super::load::run_all(parts.into_iter().map(|(f, n, b, mine)| move || one(&work[f..n], mine, f, b)).collect());
}

/// A message and the slot it is read into take the same room, so the slots
/// become the list of messages without a second allocation.
const _: () = assert!(size_of::<Option<AgentMessage>>() == size_of::<AgentMessage>());

/// One entry whose message the context wants: the entry, whether system
/// messages are left out, and where it is in the session's entries (16
/// bytes: a long branch is a list of these while its context is built).
type Wanted<'a> = (&'a Entry, bool, u32);

/// Put the message of `e` in `slot`: read it unless the slot holds the
/// message read with the entry (and no edit applies); a system message is
/// left out with `no_system`.
fn fill(
    e: &Entry,
    no_system: bool,
    slot: &mut Option<AgentMessage>,
    edits: &HashMap<String, Value>,
    lines: &mut LineReader,
) {
    if slot.is_none() || edits.contains_key(e.id()) {
        *slot = message_for(e, no_system, edits, lines);
    } else if no_system && slot.as_ref().is_some_and(is_system) {
        *slot = None;
    }
}

impl Gather {
    /// The messages of `work`, read side by side when there are many, each
    /// into a slot (the slots become the list of messages in place). With
    /// messages read when the file was (`pre`, for a branch that is the
    /// whole file in order), their list by line is the list of slots;
    /// otherwise what they hold is moved to slots of the work's own.
    fn entries(&mut self, work: &[Wanted<'_>], pre: Option<super::load::Preparsed>) {
        let edits = &self.edits;
        let (mut slots, slot_of) = match pre {
            Some(pre) if by_line_fits(work, &pre) => {
                let mut slots = pre.by_line;
                let line_of: Vec<usize> = work.iter().map(|w| pre.entry_line[w.2 as usize] as usize).collect();
                // Lines the work does not want lose their message.
                let mut wanted = vec![false; slots.len()];
                line_of.iter().for_each(|&l| wanted[l] = true);
                slots.iter_mut().zip(&wanted).filter(|(_, w)| !**w).for_each(|(s, _)| *s = None);
                (slots, line_of)
            }
            pre => {
                let mut pre = pre.unwrap_or_default();
                let mut slots: Vec<Option<AgentMessage>> = Vec::new();
                // Room for a turn's messages after them (see SESSION_GROWTH_ROOM).
                slots.reserve_exact(work.len() + super::SESSION_GROWTH_ROOM);
                slots.extend(work.iter().map(|w| {
                    let line = pre.entry_line.get(w.2 as usize).map(|&l| l as usize);
                    line.and_then(|l| pre.by_line.get_mut(l)).and_then(Option::take)
                }));
                (slots, (0..work.len()).collect())
            }
        };
        fill_side_by_side(work, &slot_of, &mut slots, |share, out, first, base| {
            let mut lines = LineReader::default();
            for (w, &at) in share.iter().zip(&slot_of[first..]) {
                if let Some(slot) = out.get_mut(at - base) {
                    fill(w.0, w.1, slot, edits, &mut lines);
                }
            }
        });
        if self.ids {
            let ids = work
                .iter()
                .zip(&slot_of)
                .filter(|(_, at)| slots[**at].is_some())
                .map(|(w, _)| ShortText::from(w.0.id()));
            self.out.entry_ids.extend(ids);
        }
        // Collected in place (a message and its slot take the same room;
        // `flatten` is not collected in place, `filter_map` is); the
        // compaction's own messages, gathered before, go first.
        #[allow(clippy::filter_map_identity)]
        let mut messages: Vec<AgentMessage> = slots.into_iter().filter_map(std::convert::identity).collect();
        let before = std::mem::take(&mut self.out.messages);
        messages.splice(0..0, before);
        self.out.messages = messages;
    }

    /// A message the compaction `id` stands for.
    fn synthetic(&mut self, id: &str, message: Option<AgentMessage>) {
        if matches!(self.edits.get(id), Some(Value::Null)) {
            return;
        }
        if let Some(m) = message {
            self.out.messages.push(m);
            if self.ids {
                self.out.entry_ids.push(ShortText::from(id));
            }
        }
    }
}

impl Session {
    /// The context of the active branch.
    pub fn context(&self) -> SessionContext {
        self.context_with(None, true)
    }

    /// [`Session::context`], using (and dropping) the messages read with
    /// the file when it was opened with [`Session::open_to_continue`], for
    /// an agent to take the messages: `entry_ids` is left empty (a list as
    /// long as the conversation that nobody taking the messages reads).
    pub fn take_context(&mut self) -> SessionContext {
        let pre = std::mem::take(&mut self.preparsed);
        self.context_with(Some(pre).filter(|p| !p.by_line.is_empty()), false)
    }

    /// The context, with the messages read with the file (`pre`) and the
    /// entry ids when `ids`.
    fn context_with(&self, pre: Option<super::load::Preparsed>, ids: bool) -> SessionContext {
        // The positions are dropped before the messages are gathered.
        let path: Vec<Wanted<'_>> = {
            let positions = self.branch_positions(self.leaf.as_deref());
            positions.iter().map(|&at| (&self.entries[at], false, u32::try_from(at).unwrap_or(u32::MAX))).collect()
        };
        let compaction = path.iter().rposition(|w| w.0.kind() == "compaction");
        // Sized once (the messages are: see `Gather::entries`).
        let room = match compaction {
            None => path.len(),
            Some(at) => path.len() - at + 2 + kept_from(&path, at).map_or(0, |from| at - from),
        };
        let mut g = Gather { out: SessionContext::default(), edits: HashMap::new(), ids };
        if ids {
            g.out.entry_ids.reserve_exact(room);
        }
        for &(e, _, _) in &path {
            match e.kind() {
                "model_change" => {
                    let v = e.value();
                    if let (Some(p), Some(m)) = (v["provider"].as_str(), v["modelId"].as_str()) {
                        g.out.model = Some((p.to_string(), m.to_string()));
                    }
                }
                "thinking_level_change" => {
                    g.out.thinking_level = e.field("thinkingLevel").as_str().map(String::from);
                }
                "context_edit" => {
                    let mut v = e.value();
                    if let Some(t) = v["targetId"].as_str().map(String::from) {
                        g.edits.insert(t, v["replacement"].take());
                    }
                }
                _ => {}
            }
        }
        match compaction {
            None => g.entries(&path, pre),
            Some(at) => {
                let c = path[at].0.value();
                let id = path[at].0.id();
                if let Some(sys) = c.get("systemMessage").filter(|s| s.is_object()) {
                    g.synthetic(id, AgentMessage::deserialize(sys).ok());
                }
                let summary = AgentMessage::Agent(AgentOnly::CompactionSummary(CompactionSummaryMessage {
                    summary: c["summary"].as_str().unwrap_or_default().to_string(),
                    tokens_before: c["tokensBefore"].as_u64().unwrap_or(0),
                    timestamp: millis(&c["timestamp"]),
                }));
                g.synthetic(id, Some(summary));
                let kept = kept_from(&path, at).map_or(&[][..], |from| &path[from..at]);
                let work: Vec<Wanted<'_>> =
                    kept.iter().map(|&(e, _, p)| (e, true, p)).chain(path[at + 1..].iter().copied()).collect();
                g.entries(&work, pre);
            }
        }
        g.out
    }
}

/// Where the entries the compaction at `at` keeps start, if it names one
/// on the branch.
fn kept_from(path: &[Wanted<'_>], at: usize) -> Option<usize> {
    let first_kept = path[at].0.field("firstKeptEntryId");
    let first_kept = first_kept.as_str()?;
    path[..at].iter().position(|w| w.0.id() == first_kept)
}
