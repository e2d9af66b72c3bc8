//! The Landlock ruleset (ABI 6: file system, TCP, signal and abstract-socket
//! scopes). Landlock only allows: "everything except the hidden stores" is
//! built by walking down to each hidden path and allowing every sibling
//! along the way (symlinks skipped: Landlock judges the real path anyway).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::error::RestrictError;
use super::spec::{HelperSpec, LandlockUse, Network};
use crate::limits::{MAX_LANDLOCK_DIR_ENTRIES, MAX_LANDLOCK_RULES};
use crate::paths::is_within;

/// The ABI whose rights are asked for (tested on ABI 7 kernels).
const ABI_USED: ABI = ABI::V6;

/// What a rule allows beneath its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grant {
    /// Read and execute.
    Read,
    /// List only (an ancestor of something hidden).
    List,
    /// Everything.
    Write,
    /// Read, write, truncate and ioctl (devices).
    Device,
}

impl Grant {
    fn access(self) -> BitFlags<AccessFs> {
        match self {
            Grant::Read => AccessFs::from_read(ABI_USED),
            Grant::List => AccessFs::ReadDir.into(),
            Grant::Write => AccessFs::from_all(ABI_USED),
            Grant::Device => {
                AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev | AccessFs::ReadDir
            }
        }
    }
}

/// Rules collected so far, within the limits.
#[derive(Default)]
struct Plan {
    rules: Vec<(PathBuf, Grant)>,
}

impl Plan {
    fn push(&mut self, p: PathBuf, g: Grant) -> Result<(), RestrictError> {
        if self.rules.len() >= MAX_LANDLOCK_RULES {
            return Err(RestrictError::TooManyEntries { path: p, limit: MAX_LANDLOCK_RULES });
        }
        self.rules.push((p, g));
        Ok(())
    }

    /// `grant` on everything under `root` except `excluded` (and what is
    /// under them); ancestors of an excluded path get `partial` (if any).
    fn all_except(
        &mut self,
        root: &Path,
        excluded: &[PathBuf],
        grant: Grant,
        partial: Option<Grant>,
    ) -> Result<(), RestrictError> {
        if excluded.iter().any(|e| is_within(root, e)) {
            return Ok(());
        }
        if !excluded.iter().any(|e| is_within(e, root)) {
            return self.push(root.to_path_buf(), grant);
        }
        if let Some(g) = partial {
            self.push(root.to_path_buf(), g)?;
        }
        let Ok(entries) = std::fs::read_dir(root) else { return Ok(()) };
        for (n, entry) in entries.flatten().enumerate() {
            if n >= MAX_LANDLOCK_DIR_ENTRIES {
                return Err(RestrictError::TooManyEntries {
                    path: root.to_path_buf(),
                    limit: MAX_LANDLOCK_DIR_ENTRIES,
                });
            }
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            self.all_except(&entry.path(), excluded, grant, partial)?;
        }
        Ok(())
    }
}

fn plan(spec: &HelperSpec) -> Result<Plan, RestrictError> {
    let mut plan = Plan::default();
    plan.all_except(Path::new("/"), &spec.hide, Grant::Read, Some(Grant::List))?;
    for p in &spec.readable {
        plan.push(p.clone(), Grant::Read)?;
    }
    for p in &spec.write {
        plan.push(p.clone(), Grant::Write)?;
    }
    for root in &spec.write_around {
        plan.all_except(root, &spec.not_write, Grant::Write, None)?;
    }
    for p in &spec.dev {
        plan.push(p.clone(), Grant::Device)?;
    }
    Ok(plan)
}

/// A ruleset handling every right of [`ABI_USED`], TCP unless the network is
/// allowed or private, and the scopes.
fn ruleset(level: CompatLevel, network: Network) -> Result<Ruleset, RestrictError> {
    let mut rs = Ruleset::default().set_compatibility(level).handle_access(AccessFs::from_all(ABI_USED))?;
    if network == Network::Off {
        rs = rs.handle_access(AccessNet::from_all(ABI_USED))?;
    }
    let scopes: BitFlags<Scope> = if network == Network::On { Scope::Signal.into() } else { Scope::from_all(ABI_USED) };
    Ok(rs.scope(scopes)?)
}

/// Whether Landlock ABI 6 or newer can be used (nothing is restricted).
pub(super) fn probe() -> Result<(), RestrictError> {
    ruleset(CompatLevel::HardRequirement, Network::Off)?.create()?;
    Ok(())
}

/// Restrict this process (and what it runs) as `spec` says.
pub(super) fn apply(spec: &HelperSpec) -> Result<(), RestrictError> {
    let level = match spec.landlock {
        LandlockUse::Off => return Ok(()),
        LandlockUse::Required => CompatLevel::HardRequirement,
        LandlockUse::Optional => CompatLevel::BestEffort,
    };
    let plan = plan(spec)?;
    let mut created = ruleset(level, spec.network)?.create()?;
    let file_rights = AccessFs::from_file(ABI_USED);
    for (path, grant) in plan.rules {
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        let Ok(fd) = PathFd::new(&path) else { continue };
        let access = if meta.is_dir() { grant.access() } else { grant.access() & file_rights };
        created = created.add_rule(PathBeneath::new(fd, access))?;
    }
    let status = created.restrict_self()?;
    if spec.landlock == LandlockUse::Required && status.ruleset != RulesetStatus::FullyEnforced {
        return Err(RestrictError::LandlockNotEnforced(status.ruleset));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_except_walks_down_to_each_hidden_path() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        for d in ["a/secret/x", "a/b", "c"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("a/f"), "").unwrap();
        std::os::unix::fs::symlink(root.join("a/secret"), root.join("a/link")).unwrap();
        let mut plan = Plan::default();
        plan.all_except(&root, &[root.join("a/secret")], Grant::Read, Some(Grant::List)).unwrap();
        let mut got: Vec<(String, Grant)> = plan
            .rules
            .iter()
            .map(|(p, g)| (p.strip_prefix(&root).unwrap().to_string_lossy().into_owned(), *g))
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        let want =
            [("", Grant::List), ("a", Grant::List), ("a/b", Grant::Read), ("a/f", Grant::Read), ("c", Grant::Read)];
        assert_eq!(got, want.map(|(p, g)| (p.to_string(), g)));
        let mut plan = Plan::default();
        plan.all_except(&root, &[root.join("a")], Grant::Write, None).unwrap();
        assert_eq!(plan.rules, [(root.join("c"), Grant::Write)]);
    }
}
