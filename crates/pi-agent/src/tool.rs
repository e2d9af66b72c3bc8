//! A tool as the agent sees it: a definition (data) plus an execute function.
//! Built-ins wrap `pi-tools`; extensions, MCP and codemode add their own.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use pi_tools::{Annotations, ToolContext, ToolName, ToolResult, ToolSpec};
use serde_json::Value;

/// How a tool is reached (requirement X1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exposure {
    /// Declared while active and callable while active.
    #[default]
    Direct,
    /// Declared while active, never callable by other tools.
    ModelOnly,
    /// Always callable, never declared, listed by codemode.
    Codemode,
    /// Like codemode but found only by search.
    Deferred,
    /// Unreachable.
    Hidden,
}

/// Whether sibling calls may run at the same time as this tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecutionMode {
    /// May run alongside other calls.
    #[default]
    Parallel,
    /// Runs alone.
    Sequential,
}

/// A tool's definition: everything but the code.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// Unique name.
    pub name: String,
    /// What the model reads.
    pub description: String,
    /// JSON schema of the arguments.
    pub parameters: Value,
    /// One-line system-prompt entry.
    pub prompt_snippet: Option<String>,
    /// System-prompt rules while active.
    pub prompt_guidelines: Vec<String>,
    /// Author hints.
    pub annotations: Annotations,
    /// How it is reached.
    pub exposure: Exposure,
    /// Activate on registration (direct/model-only only).
    pub default_active: bool,
    /// Parallel or sequential.
    pub execution_mode: ExecutionMode,
    /// The group the tool belongs to (requirement X8).
    pub namespace: Option<Namespace>,
    /// Whether the provider should constrain the arguments to the schema
    /// (`constrainedSampling`; its strict mode, when the model's `compat` has one).
    pub constrained_sampling: Option<pi_ai::ConstrainedSampling>,
}

impl ToolDef {
    /// Whether registering the tool activates it: `direct` and `model-only`
    /// tools unless `defaultActive` is false (requirement X2).
    pub fn activates_on_registration(&self) -> bool {
        self.default_active && matches!(self.exposure, Exposure::Direct | Exposure::ModelOnly)
    }
}

/// A group of related tools, as an MCP server's (requirement X8). Codemode
/// lists a namespace under one heading; `instructions` are read by scripts,
/// never put in the model's context.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Namespace {
    /// The group's name (`mcp__docs`).
    pub name: String,
    /// Other names scripts may look the group up by (`docs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// One line listed with the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Longer usage guidance, never listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Which other tools a call may reach (`reachesTools`, requirement X6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Any tool.
    All,
    /// Words of the input; a word refers to every tool or namespace whose name contains it.
    Words(Vec<String>),
}

/// A running call's facts handed to a tool.
pub struct Invocation<'a> {
    /// The call's id.
    pub call_id: &'a str,
    /// Validated (and possibly handler-mutated) arguments.
    pub args: Value,
    /// Folder, abort signal, updates, session facts.
    pub ctx: &'a ToolContext,
    /// Calls to other tools through the same pipeline (`ctx.executeTool`);
    /// present when the call came through the [`crate::Dispatcher`].
    pub nested: Option<crate::nested::NestedCaller<'a>>,
    /// Set by the tool to ask the run to end after this batch (an extension
    /// tool's `terminate: true`); it ends only when every call of the batch asks.
    pub terminate: Option<&'a std::sync::atomic::AtomicBool>,
}

/// A tool the agent can declare and call.
pub trait AgentTool: Send + Sync {
    /// Its definition.
    fn def(&self) -> &ToolDef;
    /// Argument preparation before validation (compatibility shims).
    fn prepare_arguments<'a>(&'a self, args: Value) -> BoxFuture<'a, Value> {
        Box::pin(std::future::ready(args))
    }
    /// Run it. Failures are error results, never panics.
    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult>;
    /// Where the tool comes from (`sourceInfo.path`): an extension's file;
    /// `None` for pi's own tools (`builtin:<name>`).
    fn source_path(&self) -> Option<&str> {
        None
    }
    /// `sourceInfo.path`: the extension's file, or `builtin:<name>`.
    fn source_info_path(&self) -> String {
        self.source_path().map(str::to_string).unwrap_or_else(|| format!("builtin:{}", self.def().name))
    }
    /// Whether the tool says which tools its calls reach ([`AgentTool::reaches_tools`]).
    fn has_reaches_tools(&self) -> bool {
        false
    }
    /// Which tools a call with `input` may reach; `None` when the tool does
    /// not say (it reaches none). Requirement X6. Synchronous: it is asked
    /// from extension engines' own threads (`ctx.getAllTools()` infos), never
    /// from the async runtime.
    fn reaches_tools(&self, _input: &Value) -> Option<Reach> {
        None
    }
    /// JSON schema of the structured value programmatic callers (codemode
    /// scripts) receive (`outputSchema`); `None`: they receive the text.
    fn output_schema(&self) -> Option<&Value> {
        None
    }
    /// Whether the tool adjusts the declared tools while active ([`AgentTool::prepare_loadout`]).
    fn has_prepare_loadout(&self) -> bool {
        false
    }
    /// Adjust the declarations while this tool is active (requirement X7):
    /// replacement descriptions and declarations to leave out of requests.
    /// An error is reported as an extension error (event `prepare_loadout`) and ignored.
    fn prepare_loadout<'a>(
        &'a self,
        _loadout: &'a Loadout,
    ) -> BoxFuture<'a, Result<LoadoutChanges, crate::hooks::HandlerError>> {
        Box::pin(std::future::ready(Ok(Default::default())))
    }
}

/// What a `prepareLoadout` hook sees.
pub struct Loadout {
    /// The active tools, in order.
    pub declared: Vec<Arc<dyn AgentTool>>,
    /// The tools nested calls may reach with this active set.
    pub callable: Vec<Arc<dyn AgentTool>>,
    /// Every registered tool.
    pub registered: Vec<Arc<dyn AgentTool>>,
}

impl Loadout {
    fn find(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.registered.iter().find(|t| t.def().name == name)
    }

    /// A registered tool's exposure (`direct` for unknown names, as the reference).
    pub fn exposure(&self, name: &str) -> Exposure {
        self.find(name).map(|t| t.def().exposure).unwrap_or_default()
    }

    /// A registered tool's namespace.
    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.find(name).and_then(|t| t.def().namespace.as_ref())
    }

    /// A registered tool's prompt guidelines (empty for unknown names).
    pub fn prompt_guidelines(&self, name: &str) -> &[String] {
        self.find(name).map(|t| t.def().prompt_guidelines.as_slice()).unwrap_or(&[])
    }
}

/// What a hook returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadoutChanges {
    /// Replacement descriptions of declared tools, by name.
    pub descriptions: BTreeMap<String, String>,
    /// Active tools whose declarations requests leave out.
    pub hidden_declarations: Vec<String>,
}

/// Whether a built-in asks for strict sampling of its arguments where the
/// provider offers it (the reference's `read`, `bash`, `powershell`, `edit`
/// and `write`; the search tools do not).
fn prefers_strict_arguments(name: ToolName) -> bool {
    matches!(name, ToolName::Read | ToolName::Bash | ToolName::Powershell | ToolName::Edit | ToolName::Write)
}

/// A built-in tool of `pi-tools` as an [`AgentTool`].
pub struct BuiltinTool {
    name: ToolName,
    def: ToolDef,
    output_schema: Option<Value>,
}

impl BuiltinTool {
    /// Wrap a built-in.
    pub fn new(name: ToolName) -> Self {
        let spec = ToolSpec::of(name);
        let def = ToolDef {
            constrained_sampling: prefers_strict_arguments(name).then_some(pi_ai::ConstrainedSampling::PREFER_STRICT),
            name: spec.name.to_string(),
            description: spec.description,
            parameters: spec.parameters,
            prompt_snippet: Some(spec.prompt_snippet.to_string()),
            prompt_guidelines: spec.prompt_guidelines.iter().map(|s| s.to_string()).collect(),
            annotations: spec.annotations,
            exposure: Exposure::Direct,
            default_active: false,
            execution_mode: ExecutionMode::Parallel,
            namespace: None,
        };
        BuiltinTool { name, def, output_schema: spec.output_schema }
    }

    /// All eight built-ins.
    pub fn all() -> Vec<Arc<dyn AgentTool>> {
        ToolName::ALL.iter().map(|t| Arc::new(BuiltinTool::new(*t)) as Arc<dyn AgentTool>).collect()
    }
}

impl AgentTool for BuiltinTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn prepare_arguments<'a>(&'a self, args: Value) -> BoxFuture<'a, Value> {
        Box::pin(std::future::ready(pi_tools::prepare_arguments(self.name, args)))
    }
    fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }
    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            match pi_tools::execute_validated(self.name, inv.args, inv.ctx).await {
                Ok(r) => r,
                Err(e) => ToolResult::thrown(e.to_string()),
            }
        })
    }
}
