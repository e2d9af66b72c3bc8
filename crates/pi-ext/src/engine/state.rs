//! What the engine thread keeps: the realm its extensions share (whose
//! turn runs, its deadline, deferred messages), each extension's state
//! between turns, and which engine's thread the current thread is.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::Instant;

use serde_json::Value;

use super::config::{EngineConfig, Shared};
use super::error::EngineError;
use super::protocol::{CallSink, ExtHandle, ExtId, ExtSender, Msg};
use crate::api::ToolsApi;
use crate::compile::Compiled;
use crate::node::NodeHost;
use crate::node::child::{Running, SpawnSpec};
use crate::node::error::NodeError;
use crate::tool_meta::ToolMeta;

thread_local! {
    /// The engine whose thread this is (0: not an engine thread). Thread-local
    /// because the JavaScript engine calls back into Rust without a context
    /// that says which engine's thread it runs on.
    pub(crate) static ON_REALM: Cell<usize> = const { Cell::new(0) };
}

/// What the extensions of one engine share on its thread.
pub(crate) struct Realm {
    /// The loaded extensions, by id.
    pub exts: RefCell<BTreeMap<ExtId, Rc<State>>>,
    /// The extension whose turn is running (0: none).
    pub current: Cell<ExtId>,
    /// Messages to handle before reading the channel again.
    pub deferred: RefCell<VecDeque<(ExtId, Msg)>>,
    /// When the current turn's JavaScript must have paused.
    pub deadline: Rc<Cell<Instant>>,
    /// The last child process id (ids are the realm's: the glue's table is shared).
    next_child: Cell<u64>,
    /// The channel's sending side (for work finishing on other threads).
    pub tx: mpsc::Sender<(ExtId, Msg)>,
}

impl Realm {
    /// A realm with no extensions yet, no turn running until `deadline`,
    /// and `tx` the channel's sending side.
    pub(crate) fn new(deadline: Instant, tx: mpsc::Sender<(ExtId, Msg)>) -> Self {
        Realm {
            exts: RefCell::new(BTreeMap::new()),
            current: Cell::new(0),
            deferred: RefCell::new(VecDeque::new()),
            deadline: Rc::new(Cell::new(deadline)),
            next_child: Cell::new(0),
            tx,
        }
    }

    /// The extension whose turn is running.
    pub(crate) fn current_state(&self) -> Option<Rc<State>> {
        self.exts.borrow().get(&self.current.get()).cloned()
    }

    /// A new child process id.
    fn next_child(&self) -> u64 {
        let id = self.next_child.get() + 1;
        self.next_child.set(id);
        id
    }
}

impl NodeHost for Realm {
    fn restart_clock(&self) {
        if let Some(s) = self.current_state() {
            self.deadline.set(Instant::now() + s.cfg.limits.time);
        }
    }

    fn spawn_child(&self, spec: &SpawnSpec) -> Option<Result<(u64, u32), NodeError>> {
        let s = self.current_state()?;
        let id = self.next_child();
        let tx = s.tx.clone();
        let started = crate::node::child::spawn(spec, move |event| tx.send(Msg::Child { id, event }).is_ok());
        Some(started.map(|running| {
            let pid = running.pid;
            s.children.borrow_mut().insert(id, running);
            (id, pid)
        }))
    }

    fn with_child(&self, id: u64, f: &mut dyn FnMut(&mut Running)) {
        for s in self.exts.borrow().values() {
            if let Some(c) = s.children.borrow_mut().get_mut(&id) {
                return f(c);
            }
        }
    }
}

/// What the engine thread keeps of one extension between turns.
pub(crate) struct State {
    /// The extension's id in the engine.
    pub id: ExtId,
    pub path: String,
    pub cfg: EngineConfig,
    /// Running calls and where their messages go (id 0: the load).
    pub calls: RefCell<HashMap<u64, CallSink>>,
    /// Outcomes reported during the current turn, delivered when it ends well.
    pub outbox: RefCell<Vec<(u64, Result<Value, EngineError>)>>,
    /// The extension's timers (ids are the realm's) and when they are due.
    pub timers: RefCell<HashMap<u64, Instant>>,
    /// The tools registered so far.
    pub tools: RefCell<Vec<ToolMeta>>,
    /// Tools registered after load, before the session's tools were bound.
    pub pending_tools: RefCell<Vec<ToolMeta>>,
    pub tools_api: RefCell<Option<Arc<dyn ToolsApi>>>,
    /// The extension's handle, once it is known.
    pub handle: RefCell<Option<Weak<dyn ExtHandle>>>,
    /// The factory finished.
    pub loaded: Cell<bool>,
    /// What the handle reads (events with handlers, commands, the session).
    pub shared: Shared,
    /// Why the extension stopped, once it has.
    pub poisoned: RefCell<Option<EngineError>>,
    /// The engine's channel, for messages about this extension.
    pub tx: ExtSender,
    /// Child processes still running (`node:child_process`); dropping one kills it.
    pub children: RefCell<HashMap<u64, Running>>,
    /// The realm (its queue of deferred messages).
    realm: std::rc::Weak<Realm>,
    /// The module compiled ahead, until the load takes it.
    pub compiled: RefCell<Option<Compiled>>,
}

impl State {
    /// Extension `ext` of `realm`, started with `cfg`, its load call going
    /// to `load`, what its handle reads in `shared`.
    pub(crate) fn new(realm: &Rc<Realm>, ext: ExtId, mut cfg: EngineConfig, load: CallSink, shared: Shared) -> Self {
        let compiled = RefCell::new(cfg.compiled.take());
        State {
            compiled,
            id: ext,
            path: cfg.path.to_string_lossy().into_owned(),
            cfg,
            calls: RefCell::new(HashMap::from([(0, load)])),
            outbox: RefCell::new(Vec::new()),
            timers: RefCell::new(HashMap::new()),
            tools: RefCell::new(Vec::new()),
            pending_tools: RefCell::new(Vec::new()),
            tools_api: RefCell::new(None),
            handle: RefCell::new(None),
            loaded: Cell::new(false),
            shared,
            poisoned: RefCell::new(None),
            tx: ExtSender::new(realm.tx.clone(), ext),
            children: RefCell::new(HashMap::new()),
            realm: Rc::downgrade(realm),
        }
    }

    /// The extension's handle, while it lives.
    pub(crate) fn handle(&self) -> Option<Arc<dyn ExtHandle>> {
        self.handle.borrow().as_ref().and_then(Weak::upgrade)
    }

    /// Handle `msg` about this extension after the current one.
    pub(crate) fn defer(&self, msg: Msg) {
        if let Some(realm) = self.realm.upgrade() {
            realm.deferred.borrow_mut().push_back((self.id, msg));
        }
    }
}
