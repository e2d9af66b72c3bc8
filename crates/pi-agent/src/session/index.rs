//! Entries by id: an open-addressing table of positions in the session's
//! list of entries, the ids themselves read from the entries (a map from id
//! strings would hold every id a second time, in an allocation of its own).

use super::Entry;

/// Where each id is in the entries (the latest entry with an id wins).
#[derive(Debug, Default)]
pub(crate) struct IdIndex {
    /// Position + 1 of an entry, 0 for a free slot; the length is a power of
    /// two at least twice the number of ids.
    slots: Vec<u32>,
    /// Ids held.
    len: usize,
}

/// FNV-1a: ids are short, and none is chosen to collide.
fn hash(id: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as usize
}

impl IdIndex {
    /// The slot `id` is in, or the free slot it would go in.
    fn slot(&self, id: &str, entries: &[Entry]) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = hash(id) & mask;
        loop {
            match self.slots[at] {
                0 => return Some(at),
                n if entries.get(n as usize - 1).is_some_and(|e| e.id() == id) => return Some(at),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The position of the entry with `id`.
    pub(crate) fn get(&self, id: &str, entries: &[Entry]) -> Option<usize> {
        let at = self.slot(id, entries)?;
        self.slots[at].checked_sub(1).map(|n| n as usize)
    }

    /// Whether an entry has `id`.
    pub(crate) fn contains(&self, id: &str, entries: &[Entry]) -> bool {
        self.get(id, entries).is_some()
    }

    /// Index `entries[at]` (the last one pushed) under its id.
    pub(crate) fn insert(&mut self, entries: &[Entry], at: usize) {
        let Ok(n) = u32::try_from(at + 1) else { return };
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(entries, at);
        }
        let Some(e) = entries.get(at) else { return };
        if let Some(slot) = self.slot(e.id(), entries) {
            if self.slots[slot] == 0 {
                self.len += 1;
            }
            self.slots[slot] = n;
        }
    }

    /// Twice the room, the entries before `upto` indexed again in order.
    fn grow(&mut self, entries: &[Entry], upto: usize) {
        let room = (self.slots.len() * 2).max(64);
        *self = IdIndex { slots: vec![0; room], len: 0 };
        for i in 0..upto.min(entries.len()) {
            self.insert(entries, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> Entry {
        Entry::from_value(&serde_json::json!({"type": "label", "id": id})).unwrap()
    }

    #[test]
    fn ids_are_found_through_growth_and_the_latest_wins() {
        let mut entries = Vec::new();
        let mut index = IdIndex::default();
        for i in 0..1000 {
            entries.push(entry(&format!("{i:08x}")));
            index.insert(&entries, i);
        }
        assert!((0..1000).all(|i| index.get(&format!("{i:08x}"), &entries) == Some(i)));
        assert_eq!(index.get("nope", &entries), None);
        entries.push(entry("00000007"));
        index.insert(&entries, 1000);
        assert_eq!(index.get("00000007", &entries), Some(1000), "a repeated id: the later entry");
        assert!(index.contains("000003e7", &entries) && !index.contains("", &entries));
        assert_eq!(IdIndex::default().get("a", &entries), None);
    }
}
