//! Restores: the files a turn changed brought back as a checkpoint has
//! them (one turn: undo; every later turn of the session: rewind), never
//! over a file changed since unless forced, what is there kept first.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::CheckpointError;
use crate::meta::Meta;
use crate::store::{Kind, Record, Restored, Snapshot, Store};

impl Store {
    /// Bring back the files as they were at the `before` snapshot `id`,
    /// undoing every change its session's turns made since (rewind).
    pub fn rewind(&self, id: &str, force: bool) -> Result<Restored, CheckpointError> {
        let before = self.find(id)?;
        if before.record.kind != Kind::Before {
            return Err(CheckpointError::NotFound(id.to_string()));
        }
        let session = before.record.session.clone();
        let last = self.history(&session)?.into_iter().rev().find(|s| s.record.kind == Kind::After);
        let last = match last {
            Some(s) => s.id,
            None => self.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::After, &session) })?.id,
        };
        self.restore(&session, &before, &last, force)
    }

    /// Bring the files `turn_after` changed since `before` back to `before`,
    /// for `session`. Refused (nothing written) when one of them changed
    /// since `turn_after` unless `force`. What is there first becomes a
    /// snapshot of kind `restore`.
    pub fn restore(
        &self,
        session: &str,
        before: &Snapshot,
        turn_after: &str,
        force: bool,
    ) -> Result<Restored, CheckpointError> {
        let now = self.snapshot(Record::new(Kind::Restore, session))?;
        let paths = self.changes(&before.id, turn_after)?;
        let conflicts = self.changed_again(&paths, turn_after, &now.id)?;
        if !conflicts.is_empty() && !force {
            return Err(CheckpointError::ChangedSince(conflicts));
        }
        let tree = self.tree(&before.id)?;
        let (back, gone): (Vec<&String>, Vec<&String>) = paths.iter().partition(|p| tree.contains_key(p.as_str()));
        let ids: Vec<&str> = back.iter().filter_map(|p| tree.get(p.as_str())).map(|(_, blob)| blob.as_str()).collect();
        // Files with the same contents share a blob: each is written from it.
        let contents = self.blobs(&ids)?;
        let git = self.git(session);
        let (was, became) =
            (Meta::of(&git, &before.id).unwrap_or_default(), Meta::of(&git, turn_after).unwrap_or_default());
        let mut done = Restored { previous: Some(now.id.clone()), ..Restored::default() };
        for path in back {
            if let Some((mode, blob)) = tree.get(path.as_str()) {
                let data =
                    contents.get(blob.as_str()).ok_or_else(|| CheckpointError::Git("cat-file".into(), blob.clone()))?;
                self.write_back(path, mode, data, was.modes.get(path.as_str()).copied())?;
                done.written.push(path.clone());
            }
        }
        self.restore_modes(&was, &became, &tree, &paths, &mut done)?;
        // The checkpoint's folders: a removal never takes one of them away.
        let folders: HashSet<&str> =
            if gone.is_empty() { HashSet::new() } else { tree.keys().flat_map(|p| ancestors(p)).collect() };
        for path in gone {
            self.remove(path, &folders)?;
            done.removed.push(path.clone());
        }
        self.restore_empty_dirs(&was, &became, &mut done)?;
        let skipped: HashSet<&str> = before.record.skipped.iter().map(|s| s.path.as_str()).collect();
        done.not_restorable = skipped.iter().filter(|p| !self.work().join(p).exists()).map(|p| p.to_string()).collect();
        done.not_restorable.sort();
        self.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::Restored, session) })?;
        Ok(done)
    }

    /// `path → (mode, blob)` of a snapshot's files.
    fn tree(&self, id: &str) -> Result<HashMap<String, (String, String)>, CheckpointError> {
        let git = self.git("tree");
        let out = git.run(&["ls-tree", "-r", "-z", "--full-tree", id], None)?;
        Ok(out
            .split(|b| *b == 0)
            .filter_map(|item| {
                let item = String::from_utf8_lossy(item);
                let (meta, path) = item.split_once('\t')?;
                let mut parts = meta.split(' ');
                let (mode, _kind, blob) = (parts.next()?, parts.next()?, parts.next()?);
                Some((path.to_string(), (mode.to_string(), blob.to_string())))
            })
            .collect())
    }

    /// The contents of the blobs `ids`, read by one `git cat-file --batch`.
    fn blobs(&self, ids: &[&str]) -> Result<HashMap<String, Vec<u8>>, CheckpointError> {
        let mut out = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let batch = self.git("blob").run(&["cat-file", "--batch"], Some(input.as_bytes()))?;
        // `<id> <type> <size>\n<contents>\n` for each.
        let mut rest = batch.as_slice();
        while let Some(eol) = rest.iter().position(|b| *b == b'\n') {
            let head = String::from_utf8_lossy(&rest[..eol]).into_owned();
            let mut fields = head.split(' ');
            let (Some(id), Some(_kind), Some(Ok(size))) =
                (fields.next(), fields.next(), fields.next().map(str::parse::<usize>))
            else {
                return Err(CheckpointError::Git("cat-file".into(), head));
            };
            let body = rest
                .get(eol + 1..eol + 1 + size)
                .ok_or_else(|| CheckpointError::Git("cat-file".into(), head.clone()))?;
            out.insert(id.to_string(), body.to_vec());
            rest = rest.get(eol + 2 + size..).unwrap_or_default();
        }
        Ok(out)
    }

    /// Permission bits a turn changed on files whose contents it left alone
    /// (`chmod 644 secret`): back to what they were.
    fn restore_modes(
        &self,
        was: &Meta,
        became: &Meta,
        tree: &HashMap<String, (String, String)>,
        rewritten: &[String],
        done: &mut Restored,
    ) -> Result<(), CheckpointError> {
        let mut changed: Vec<&String> = was.modes.keys().chain(became.modes.keys()).collect();
        changed.sort();
        changed.dedup();
        for path in changed {
            if was.modes.get(path) == became.modes.get(path) || rewritten.contains(path) {
                continue;
            }
            let full = self.work().join(path);
            let Ok(m) = std::fs::symlink_metadata(&full) else { continue };
            if !m.is_file() {
                continue;
            }
            let want = match (was.modes.get(path), tree.get(path.as_str())) {
                (Some(mode), _) => *mode,
                (None, Some((git_mode, _))) if git_mode == "100755" => 0o755,
                (None, _) => 0o644,
            };
            std::fs::set_permissions(&full, std::os::unix::fs::PermissionsExt::from_mode(want))
                .map_err(|e| CheckpointError::Io(path.clone(), e))?;
            done.written.push(path.clone());
        }
        Ok(())
    }

    /// Empty folders: those there before come back, those the turn left
    /// (and are still empty) go. Named with a trailing `/`.
    fn restore_empty_dirs(&self, was: &Meta, became: &Meta, done: &mut Restored) -> Result<(), CheckpointError> {
        for dir in &was.dirs {
            let full = self.work().join(dir);
            if std::fs::symlink_metadata(&full).is_err() {
                std::fs::create_dir_all(&full).map_err(|e| CheckpointError::Io(dir.clone(), e))?;
                done.written.push(format!("{dir}/"));
            }
        }
        for dir in became.dirs.difference(&was.dirs) {
            // The folder, and the folders above it the turn made for it (left empty).
            let mut at = Some(dir.as_str());
            while let Some(d) = at.filter(|d| !d.is_empty() && (d == dir || !was.dirs.contains(*d))) {
                if std::fs::remove_dir(self.work().join(d)).is_err() {
                    break;
                }
                done.removed.push(format!("{d}/"));
                at = d.rsplit_once('/').map(|(parent, _)| parent);
            }
        }
        Ok(())
    }

    /// Write `path` back as `data` with git mode `mode` (`exact`: the
    /// permission bits it had, when they were not git's 644 or 755).
    fn write_back(&self, path: &str, mode: &str, data: &[u8], exact: Option<u32>) -> Result<(), CheckpointError> {
        let full = self.work().join(path);
        let io = |e| CheckpointError::Io(path.to_string(), e);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let old = std::fs::symlink_metadata(&full).ok();
        if old.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(CheckpointError::Io(path.to_string(), std::io::Error::other("a folder is there now")));
        }
        if mode == "120000" {
            if old.is_some() {
                std::fs::remove_file(&full).map_err(io)?;
            }
            let target = String::from_utf8_lossy(data).into_owned();
            return std::os::unix::fs::symlink(target, &full).map_err(io);
        }
        if mode == "160000" {
            return Ok(());
        }
        // Written beside it and renamed over it: never half a file.
        let tmp =
            full.with_file_name(format!(".{}.pi-restore", full.file_name().and_then(|n| n.to_str()).unwrap_or("file")));
        std::fs::write(&tmp, data).map_err(io)?;
        let keep = old.filter(|m| m.is_file()).map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()));
        let exec = mode == "100755";
        let perms = exact.unwrap_or(match keep {
            Some(m) if exec => m | ((m & 0o444) >> 2),
            Some(m) => m & !0o111,
            None if exec => 0o755,
            None => 0o644,
        });
        std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(perms)).map_err(io)?;
        std::fs::rename(&tmp, &full).map_err(io)
    }

    /// Remove `path` (not in the snapshot) and the folders it leaves empty
    /// that are not among the snapshot's `folders`.
    fn remove(&self, path: &str, folders: &HashSet<&str>) -> Result<(), CheckpointError> {
        let full = self.work().join(path);
        match std::fs::symlink_metadata(&full) {
            Ok(m) if m.is_dir() => return Ok(()),
            Ok(_) => std::fs::remove_file(&full).map_err(|e| CheckpointError::Io(path.to_string(), e))?,
            Err(_) => return Ok(()),
        }
        let mut dir = Path::new(path).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            let name = d.to_string_lossy();
            if folders.contains(name.as_ref()) || std::fs::remove_dir(self.work().join(d)).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }
}

/// The folders above `path` (`a/b/c` → `a/b`, `a`).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}
