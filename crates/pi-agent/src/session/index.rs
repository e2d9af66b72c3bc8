//! Entries by id: a table of positions in the session's list of entries
//! (hashbrown's `HashTable`), the ids themselves read from the entries: a
//! map from id strings would hold every id a second time, in an allocation
//! of its own. Ids are hashed with std's randomly keyed hasher, so a session
//! file crafted to collide cannot make lookups quadratic.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry as Slot;

use super::Entry;

/// Where each id is in the entries (the latest entry with an id wins).
#[derive(Default)]
pub(crate) struct IdIndex {
    /// Positions of entries, found by their ids' hashes.
    table: HashTable<u32>,
    hasher: RandomState,
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdIndex").field("ids", &self.table.len()).finish()
    }
}

impl IdIndex {
    /// The position of the entry with `id`.
    pub(crate) fn get(&self, id: &str, entries: &[Entry]) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        let found = self.table.find(hash, |&n| entries.get(n as usize).is_some_and(|e| e.id() == id))?;
        Some(*found as usize)
    }

    /// Whether an entry has `id`.
    pub(crate) fn contains(&self, id: &str, entries: &[Entry]) -> bool {
        self.get(id, entries).is_some()
    }

    /// An index of `entries`, sized for them at once (no growth while it is built).
    pub(crate) fn of(entries: &[Entry]) -> IdIndex {
        let mut index = IdIndex { table: HashTable::with_capacity(entries.len()), hasher: RandomState::new() };
        for at in 0..entries.len() {
            index.insert(entries, at);
        }
        index
    }

    /// Index `entries[at]` (the last one pushed) under its id.
    pub(crate) fn insert(&mut self, entries: &[Entry], at: usize) {
        let (Ok(n), Some(e)) = (u32::try_from(at), entries.get(at)) else { return };
        let hasher = &self.hasher;
        let rehash = |&p: &u32| entries.get(p as usize).map_or(0, |e| hasher.hash_one(e.id()));
        let id = e.id();
        let hash = hasher.hash_one(id);
        match self.table.entry(hash, |&p| entries.get(p as usize).is_some_and(|o| o.id() == id), rehash) {
            Slot::Occupied(mut o) => *o.get_mut() = n,
            Slot::Vacant(v) => {
                v.insert(n);
            }
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
