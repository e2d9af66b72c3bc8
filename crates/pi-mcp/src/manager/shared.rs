//! What the servers of one session share: the log, the tool selection, the
//! registrar, the names taken, the process groups, and the resource tools
//! (registered again when the widest exposure among servers with resources
//! changes).

use std::sync::{Arc, Mutex, OnceLock, Weak};

use pi_agent::{AgentTool, Exposure};

use super::terms::{Admit, AdmitFn, Registrar};
use crate::exposure::ServerExposure;
use crate::logfile::LogFile;
use crate::resources::{ResourceTool, Servers, offers_resources};

/// The resource tools as last registered: their exposure (`None`: no server
/// offers resources) and the tools.
pub(super) type ResourceTools = (Option<Exposure>, Vec<Arc<dyn AgentTool>>);

/// Shared by the servers of a session.
pub(super) struct Shared {
    pub(super) log: LogFile,
    pub(super) session_dir: Option<std::path::PathBuf>,
    pub(super) admit: AdmitFn,
    pub(super) registrar: OnceLock<Arc<dyn Registrar>>,
    pub(super) taken: Mutex<std::collections::HashSet<String>>,
    /// Every configured server, for the resource tools.
    pub(super) servers: Servers,
    /// The process groups of the stdio servers started and not stopped yet.
    pub(super) groups: crate::process::Groups,
    /// The resource tools as last registered (exposure, tools).
    pub(super) resource_tools: Mutex<ResourceTools>,
    /// Where `direct` servers' last answers are kept (unset: nowhere).
    pub(super) cache: OnceLock<super::cache::ToolCache>,
    /// How many servers have offered tools so far (each server's place in
    /// that order is its [`super::Server`]'s `arrived`).
    pub(super) arrivals: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// Register (again) the resource tools when the widest exposure among the
    /// servers with resources changed.
    pub(super) fn update_resource_tools(self: &Arc<Self>) {
        let all = self.servers.get().map(Vec::as_slice).unwrap_or_default();
        let exposures = all.iter().filter_map(Weak::upgrade).filter(|s| offers_resources(s)).map(|s| s.config.exposure);
        let widest = exposures.fold(None, |w: Option<ServerExposure>, e| match (w, e) {
            (Some(ServerExposure::Direct), _) | (_, ServerExposure::Direct) => Some(ServerExposure::Direct),
            (Some(w), _) => Some(w),
            (None, e) => Some(e),
        });
        let exposure = widest.map(ServerExposure::registered);
        let mut current = lock(&self.resource_tools);
        if current.0 == exposure {
            return;
        }
        let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
        for kind in crate::resources::spec::KINDS {
            let Admit::Register { activate } = (self.admit)(kind.name()) else { continue };
            let registered = exposure.unwrap_or(Exposure::Hidden);
            let active = registered == Exposure::Direct && activate;
            tools.push(Arc::new(ResourceTool::new(kind, self.servers.clone(), registered, active)));
        }
        *current = (exposure, tools.clone());
        drop(current);
        if let Some(r) = self.registrar.get() {
            r.register(tools);
        }
    }

    /// Whether `read_mcp_resource` is registered (resource links then say how to read them).
    pub(super) fn offers_read(&self) -> bool {
        let current = lock(&self.resource_tools);
        current.0.is_some_and(|e| e != Exposure::Hidden)
            && current.1.iter().any(|t| t.def().name == crate::resources::spec::READ)
    }
}

/// Lock `m`, also after a panic elsewhere poisoned it.
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
