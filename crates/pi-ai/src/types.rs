//! Messages, content blocks, usage and stop reasons: the values that travel
//! between the agent and a model. Their JSON form (camelCase, `role`/`type`
//! tags) is the reference's, so sessions and `--mode json` output can be
//! written with `serde_json` directly.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::intern::ThinStr;

use crate::failure::Failure;

/// Milliseconds since the Unix epoch, the timestamp unit of every message.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// One message of a conversation, tagged by `role`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    /// What the user (or the agent on the user's behalf) says.
    User(UserMessage),
    /// What the model answered.
    Assistant(AssistantMessage),
    /// The result of one tool call, sent back to the model.
    ToolResult(ToolResultMessage),
}

/// A user message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// A plain string or a list of text/image blocks.
    pub content: UserContent,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
}

impl UserMessage {
    /// A user message with one text block, stamped now (the reference sends
    /// prompts as a one-block list, not as a bare string).
    pub fn text(text: impl Into<String>) -> Self {
        UserMessage { content: UserContent::Blocks(vec![ContentBlock::text(text)]), timestamp: now_ms() }
    }
}

/// The content of a user message: a string or blocks (text and images).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum UserContent {
    /// A bare string.
    Text(String),
    /// Text and image blocks.
    Blocks(Vec<ContentBlock>),
}

impl UserContent {
    /// The content as blocks (a bare string becomes one text block).
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            UserContent::Text(t) => vec![ContentBlock::text(t.clone())],
            UserContent::Blocks(b) => b.clone(),
        }
    }
}

/// A content block, tagged by `type`.
///
/// A tool call whose arguments were not valid JSON keeps `arguments` as an
/// empty object and carries the parse error, followed by the raw text, in
/// `arguments_error` (`argumentsError` in JSON, like the reference):
/// `"<JSON.parse-style message>\n\nReceived arguments:\n<raw>"`. The agent
/// answers such a call with `Invalid arguments for tool "<name>": <arguments_error>`
/// without running the tool.
/// (Read by [`crate::block_de`]: `type` first is read straight into its variant.)
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data (no `data:` prefix).
        data: String,
        /// For example `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// The model's reasoning.
    Thinking {
        /// The reasoning text (or summary).
        thinking: String,
        /// Provider data needed to send the block back: Anthropic's signature,
        /// the Chat Completions field name the text came in (`reasoning_content`,
        /// `reasoning`), or the Responses reasoning item as JSON.
        #[serde(rename = "thinkingSignature", default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// A call of a tool by the model (boxed: the largest kind of block, and
    /// the rarest, so every other block stays small).
    ToolCall(Box<ToolCallBlock>),
}

/// What a tool-call block holds; see [`ContentBlock`] for `arguments_error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallBlock {
    /// The provider's call id (Responses: `<call_id>|<item id>`).
    pub id: String,
    /// The tool name (shared: a conversation calls the same few tools).
    #[serde(deserialize_with = "crate::intern::de")]
    pub name: ThinStr,
    /// The parsed arguments (an object; `{}` when they did not parse).
    #[serde(deserialize_with = "compact_value")]
    pub arguments: Value,
    /// Set when the raw arguments were not a JSON object; see [`ContentBlock`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<ThinStr>,
    /// Google: the opaque signature of the model's reasoning that came with
    /// the call, sent back with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<ThinStr>,
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// An image block.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image { data: data.into(), mime_type: mime_type.into() }
    }

    /// A tool-call block with well-formed arguments.
    pub fn tool_call(id: impl Into<String>, name: impl AsRef<str>, arguments: Value) -> Self {
        ContentBlock::ToolCall(Box::new(ToolCallBlock {
            id: id.into(),
            name: crate::intern::intern(name.as_ref()),
            arguments,
            arguments_error: None,
            thought_signature: None,
        }))
    }

    /// This block as a [`ToolCall`], if it is one.
    pub fn as_tool_call(&self) -> Option<ToolCall> {
        match self {
            ContentBlock::ToolCall(c) => Some(ToolCall {
                id: c.id.clone(),
                name: c.name.to_string(),
                arguments: c.arguments.clone(),
                arguments_error: c.arguments_error.as_deref().map(String::from),
            }),
            _ => None,
        }
    }
}

/// A tool call on its own (what `toolcall_end` carries); serializes with
/// `"type":"toolCall"` like the block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "toolCall", rename_all = "camelCase")]
pub struct ToolCall {
    /// The provider's call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The parsed arguments (`{}` when they did not parse).
    pub arguments: Value,
    /// Why the arguments did not parse, followed by the raw text; see [`ContentBlock`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<String>,
}

impl From<ToolCall> for ContentBlock {
    fn from(t: ToolCall) -> Self {
        ContentBlock::ToolCall(Box::new(ToolCallBlock {
            id: t.id,
            name: crate::intern::intern(&t.name),
            arguments: t.arguments,
            arguments_error: t.arguments_error.map(ThinStr::from),
            thought_signature: None,
        }))
    }
}

/// Why a model stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Still streaming (only seen on partial messages).
    #[default]
    Pending,
    /// The model finished its turn.
    Stop,
    /// The output-token limit was hit.
    Length,
    /// The model wants tool results.
    ToolUse,
    /// The request failed; see `error_message`.
    Error,
    /// The request was cancelled.
    Aborted,
}

/// An assistant message (final or partial).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks in the order the model produced them.
    #[serde(deserialize_with = "shrunk")]
    pub content: Vec<ContentBlock>,
    /// The wire API (`openai-completions`, `anthropic-messages`, ...);
    /// shared ([`crate::intern`]).
    #[serde(deserialize_with = "crate::intern::de")]
    pub api: ThinStr,
    /// The provider name (the `models.json` key); shared.
    #[serde(deserialize_with = "crate::intern::de")]
    pub provider: ThinStr,
    /// The model id; shared.
    #[serde(deserialize_with = "crate::intern::de")]
    pub model: ThinStr,
    /// Token counts and cost (boxed: a message slot stays small).
    pub usage: Box<Usage>,
    /// Why the model stopped (`pending` while streaming).
    pub stop_reason: StopReason,
    /// Milliseconds since the epoch when the request started.
    pub timestamp: i64,
    /// The provider's response id, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<Box<str>>,
    /// The model the provider says answered, when it names one other than
    /// the model asked for (Chat Completions' `model` field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<ThinStr>,
    /// The provider's own stop reason (`tool_calls`, `end_turn`, `completed`...).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "crate::intern::de_opt")]
    pub raw_stop_reason: Option<ThinStr>,
    /// Set when `stop_reason` is `error` or `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<ThinStr>,
    /// Wall time of the request; set by the agent, not by this crate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The thinking level the turn ran with; set by the agent, not by this crate.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "crate::intern::de_opt")]
    pub thinking_level: Option<ThinStr>,
    /// Why the request failed (the HTTP status, a connection failure, a cut
    /// stream...), for deciding on a retry; set with `error_message` when
    /// the stop reason is `error`. Not serialized: it belongs to this
    /// attempt, not to the conversation.
    #[serde(skip)]
    pub failure: Option<Box<Failure>>,
}

impl AssistantMessage {
    /// The text blocks joined together (what print mode shows).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for b in &self.content {
            if let ContentBlock::Text { text } = b {
                out.push_str(text);
            }
        }
        out
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.content.iter().filter_map(ContentBlock::as_tool_call).collect()
    }
}

/// Token counts of one response, with their cost. Missing fields read as 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    /// Input tokens not read from the cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the cache.
    pub cache_read: u64,
    /// Input tokens written to the cache.
    pub cache_write: u64,
    /// Reasoning tokens (part of `output`); the OpenAI APIs report it (also 0),
    /// Anthropic does not (then the key is absent, as in the reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    /// `input + output + cache_read + cache_write`.
    pub total_tokens: u64,
    /// Cost in dollars.
    pub cost: Cost,
    /// Anthropic: input tokens written to the one-hour cache (part of `cache_write`).
    #[serde(rename = "cacheWrite1h", default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<u64>,
}

impl Usage {
    /// The sum of two usages; the optional splits (`reasoning`,
    /// `cacheWrite1h`) are kept when either side reports them, and a total is
    /// provider-reported only when both are.
    pub fn combine(&self, other: &Usage) -> Usage {
        let opt =
            |a: Option<u64>, b: Option<u64>| (a.is_some() || b.is_some()).then(|| a.unwrap_or(0) + b.unwrap_or(0));
        Usage {
            input: self.input + other.input,
            output: self.output + other.output,
            cache_read: self.cache_read + other.cache_read,
            cache_write: self.cache_write + other.cache_write,
            reasoning: opt(self.reasoning, other.reasoning),
            total_tokens: self.total_tokens + other.total_tokens,
            cost: Cost {
                input: self.cost.input + other.cost.input,
                output: self.cost.output + other.cost.output,
                cache_read: self.cost.cache_read + other.cost.cache_read,
                cache_write: self.cost.cache_write + other.cost.cache_write,
                total: self.cost.total + other.cost.total,
                total_from_provider: Some(
                    self.cost.total_from_provider == Some(true) && other.cost.total_from_provider == Some(true),
                ),
            },
            cache_write_1h: opt(self.cache_write_1h, other.cache_write_1h),
        }
    }
}

/// Cost in dollars, computed from [`crate::ModelCost`]. Missing fields read as 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Cost {
    /// Input cost.
    #[serde(serialize_with = "js_number")]
    pub input: f64,
    /// Output cost.
    #[serde(serialize_with = "js_number")]
    pub output: f64,
    /// Cache-read cost.
    #[serde(serialize_with = "js_number")]
    pub cache_read: f64,
    /// Cache-write cost.
    #[serde(serialize_with = "js_number")]
    pub cache_write: f64,
    /// The sum.
    #[serde(serialize_with = "js_number")]
    pub total: f64,
    /// Whether the total came from the provider rather than from prices
    /// (absent until a response reported usage, as in the reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_from_provider: Option<bool>,
}

/// Serialize a float the way JavaScript prints numbers: integral values
/// without a fraction (`0`, not `0.0`).
fn js_number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 {
        s.serialize_i64(*v as i64)
    } else if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

/// The result of one tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The tool's name (shared: a conversation calls the same few tools).
    #[serde(deserialize_with = "crate::intern::de")]
    pub tool_name: ThinStr,
    /// Text and image blocks.
    #[serde(deserialize_with = "shrunk")]
    pub content: Vec<ContentBlock>,
    /// Structured details for the UI and session (not sent to the model).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "compact_details")]
    pub details: Option<Box<Value>>,
    /// Whether the tool failed.
    pub is_error: bool,
    /// How long the tool ran; set by the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The bounded record of the nested calls this call made (`{calls,
    /// complete}`); absent when it made none. Never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nested_calls: Option<Box<Value>>,
    /// Usage the tool caused (nested model calls), its nested calls' at every
    /// depth included; absent when none (boxed: rare, and a message slot
    /// stays small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
}

/// A tool as the model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON schema of the arguments.
    pub parameters: Value,
    /// Whether the provider should constrain the arguments to the schema
    /// (its strict mode), when it can ([`crate::strict`]).
    #[serde(default, rename = "constrainedSampling", skip_serializing_if = "Option::is_none")]
    pub constrained_sampling: Option<crate::ConstrainedSampling>,
}

/// Everything sent to a model for one turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// The system prompt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    #[serde(default)]
    pub tools: Vec<Tool>,
}

impl Context {
    /// The context as a [`ContextRef`] (borrowed, nothing copied).
    pub fn view(&self) -> ContextRef<'_> {
        ContextRef {
            system_prompt: self.system_prompt.as_deref(),
            messages: self.messages.iter().collect(),
            tools: &self.tools,
        }
    }
}

/// A request's context borrowed from wherever the conversation lives: a
/// provider writes its request body from it without copying the messages.
#[derive(Debug, Clone, Default)]
pub struct ContextRef<'a> {
    /// The system prompt, if any.
    pub system_prompt: Option<&'a str>,
    /// The conversation so far.
    pub messages: Vec<&'a Message>,
    /// The tools the model may call.
    pub tools: &'a [Tool],
}

impl ContextRef<'_> {
    /// An owned copy (the in-process faux provider keeps what it was sent).
    pub fn to_context(&self) -> Context {
        Context {
            system_prompt: self.system_prompt.map(str::to_string),
            messages: self.messages.iter().map(|m| (*m).clone()).collect(),
            tools: self.tools.to_vec(),
        }
    }
}

/// A JSON value read with its objects and lists held at their length (an
/// object read key by key took room for three entries where it had one).
pub(crate) fn compact_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    let mut v = Value::deserialize(d)?;
    compact(&mut v);
    Ok(v)
}

/// [`compact_value`] for an optional value (boxed: most results have none,
/// and a value takes 72 bytes where a box takes 8).
fn compact_details<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<Value>>, D::Error> {
    let mut v = Option::<Box<Value>>::deserialize(d)?;
    if let Some(v) = v.as_mut() {
        compact(v);
    }
    Ok(v)
}

/// Rebuild `v`'s objects and lists at their length (JSON nests at most 128
/// deep as serde_json reads it, so the recursion is bounded).
pub(crate) fn compact(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let old = std::mem::take(m);
            *m = old
                .into_iter()
                .map(|(k, mut x)| {
                    compact(&mut x);
                    (k, x)
                })
                .collect();
        }
        Value::Array(a) => {
            a.iter_mut().for_each(compact);
            a.shrink_to_fit();
        }
        _ => {}
    }
}

/// A list held at its length once read: read from JSON it grows by pushes
/// (no length is known beforehand), so one block took room for four (a
/// 100,000-entry session held four times its blocks' room).
fn shrunk<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    let mut v = Vec::<T>::deserialize(d)?;
    v.shrink_to_fit();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn assistant_message_serializes_like_the_reference() {
        let m = AssistantMessage {
            content: vec![
                ContentBlock::tool_call("call_0_0", "read", json!({"path": "f.txt"})),
                ContentBlock::ToolCall(Box::new(ToolCallBlock {
                    id: "call_0_1".into(),
                    name: "bash".into(),
                    arguments: json!({}),
                    arguments_error: Some("bad".into()),
                    thought_signature: None,
                })),
            ],
            api: "openai-completions".into(),
            provider: "mock".into(),
            model: "mock-1".into(),
            usage: Box::new(Usage {
                input: 10,
                output: 5,
                reasoning: Some(0),
                total_tokens: 15,
                cost: Cost { total_from_provider: Some(false), ..Default::default() },
                ..Default::default()
            }),
            stop_reason: StopReason::ToolUse,
            timestamp: 1,
            response_id: Some("c".into()),
            raw_stop_reason: Some("tool_calls".into()),
            ..Default::default()
        };
        let s = serde_json::to_string(&Message::Assistant(m.clone())).unwrap();
        assert_eq!(
            s,
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"call_0_0","name":"read","arguments":{"path":"f.txt"}},{"type":"toolCall","id":"call_0_1","name":"bash","arguments":{},"argumentsError":"bad"}],"api":"openai-completions","provider":"mock","model":"mock-1","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"stopReason":"toolUse","timestamp":1,"responseId":"c","rawStopReason":"tool_calls"}"#
        );
        let back: Message = serde_json::from_str(&s).unwrap();
        assert_eq!(back, Message::Assistant(m));
    }

    #[test]
    fn usage_before_any_response_has_the_reference_keys() {
        assert_eq!(
            serde_json::to_string(&Usage::default()).unwrap(),
            r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#
        );
    }

    #[test]
    fn user_and_tool_result_round_trip() {
        let u: Message = serde_json::from_str(r#"{"role":"user","content":"hi","timestamp":3}"#).unwrap();
        assert!(matches!(&u, Message::User(UserMessage { content: UserContent::Text(t), .. }) if t == "hi"));
        let u2: Message = serde_json::from_str(
            r#"{"role":"user","content":[{"type":"text","text":"go"},{"type":"image","data":"AA==","mimeType":"image/png"}],"timestamp":3}"#,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&u2).unwrap(),
            r#"{"role":"user","content":[{"type":"text","text":"go"},{"type":"image","data":"AA==","mimeType":"image/png"}],"timestamp":3}"#
        );
        let t = r#"{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"x"}],"details":{},"isError":true,"timestamp":5}"#;
        let m: Message = serde_json::from_str(t).unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), t);
    }

    #[test]
    fn thinking_signature_and_tool_call_struct() {
        let b = ContentBlock::Thinking { thinking: "hm".into(), signature: Some("reasoning_content".into()) };
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            r#"{"type":"thinking","thinking":"hm","thinkingSignature":"reasoning_content"}"#
        );
        let tc = ToolCall { id: "a".into(), name: "n".into(), arguments: json!({}), arguments_error: None };
        assert_eq!(serde_json::to_string(&tc).unwrap(), r#"{"type":"toolCall","id":"a","name":"n","arguments":{}}"#);
        assert_eq!(ContentBlock::from(tc.clone()).as_tool_call(), Some(tc));
    }

    #[test]
    fn cost_prints_fractions_and_integers_like_javascript() {
        let c = Cost { input: 0.0015, output: 2.0, ..Default::default() };
        let s = serde_json::to_string(&c).unwrap();
        assert!(s.starts_with(r#"{"input":0.0015,"output":2,"cacheRead":0"#), "{s}");
    }

    /// Every block of a conversation takes the room of the largest kind: the
    /// tool call is boxed, so a block is two strings and a tag (was 168).
    #[test]
    fn a_block_stays_small() {
        assert!(size_of::<ContentBlock>() <= 56, "{}", size_of::<ContentBlock>());
        let call = ContentBlock::tool_call("c1", "read", json!({"path": "f"}));
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"f"}}"#
        );
        assert_eq!(serde_json::from_str::<ContentBlock>(&serde_json::to_string(&call).unwrap()).unwrap(), call);
    }

    #[test]
    fn blocks_read_from_json_take_no_more_room_than_they_need() {
        let m: ToolResultMessage = serde_json::from_str(
            r#"{"toolCallId":"a","toolName":"ls","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":0}"#,
        )
        .unwrap();
        assert_eq!(m.content.capacity(), 1);
        let a: AssistantMessage =
            serde_json::from_str(r#"{"content":[{"type":"toolCall","id":"c","name":"ls","arguments":{}}],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":0}"#)
                .unwrap();
        assert_eq!(a.content.capacity(), 1);
    }

    #[test]
    fn values_read_keep_their_order_and_contents() {
        let b: ContentBlock = serde_json::from_str(
            r#"{"type":"toolCall","id":"c","name":"x","arguments":{"z":1,"a":[{"k":true},2],"m":{"y":null,"b":"s"}}}"#,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            r#"{"type":"toolCall","id":"c","name":"x","arguments":{"z":1,"a":[{"k":true},2],"m":{"y":null,"b":"s"}}}"#
        );
        let r: ToolResultMessage = serde_json::from_str(
            r#"{"toolCallId":"a","toolName":"ls","content":[],"details":{"b":1,"a":2},"isError":false,"timestamp":0}"#,
        )
        .unwrap();
        assert_eq!(serde_json::to_string(&r.details).unwrap(), r#"{"b":1,"a":2}"#);
        let none: ToolResultMessage =
            serde_json::from_str(r#"{"toolCallId":"a","toolName":"ls","content":[],"isError":false,"timestamp":0}"#)
                .unwrap();
        assert_eq!(none.details, None);
    }
}
