//! Every model-visible text and every limit of codemode and tool_search, in
//! one place. The texts are the reference's (Pi 1.6.0), byte for byte, so a
//! model reads the same tools and results.

// ---- Script source and options -------------------------------------------

/// The prefix of the options line.
pub const OPTIONS_PREFIX: &str = "// @options:";
/// The fields an options line may set.
pub const OPTIONS_FIELDS: &[&str] = &["max_output_tokens", "timeout_ms"];
const OPTIONS_FIELDS_TEXT: &str = "`max_output_tokens` and `timeout_ms`";
/// The largest `timeout_ms` (the largest delay of a JavaScript timer).
pub const MAX_TIMEOUT_MS: u64 = 2_147_483_647;
/// Default output budget, in estimated tokens.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u64 = 10_000;
/// Characters per estimated token.
pub const CHARS_PER_TOKEN: usize = 4;

/// Empty input.
pub const EMPTY_SOURCE: &str = "Expected JavaScript source text (non-empty). Provide JS only, optionally with a first line `// @options: {\"max_output_tokens\": 1000}`.";
/// An options line with nothing after it.
pub const OPTIONS_WITHOUT_SOURCE: &str = "The @options line must be followed by JavaScript source on subsequent lines";
/// Options that are not a JSON object.
pub const OPTIONS_NOT_OBJECT: &str =
    "@options must be a JSON object with supported fields `max_output_tokens` and `timeout_ms`";
/// A bad `max_output_tokens`.
pub const OPTIONS_BAD_MAX_OUTPUT: &str = "@options field `max_output_tokens` must be a non-negative safe integer";

/// Options that are not valid JSON (`detail`: what `JSON.parse` says).
pub fn options_invalid_json(detail: &str) -> String {
    format!("@options must be valid JSON with supported fields {OPTIONS_FIELDS_TEXT}: {detail}")
}

/// An unknown options field.
pub fn options_unsupported(key: &str) -> String {
    format!("@options only supports {OPTIONS_FIELDS_TEXT}; got `{key}`")
}

/// A bad `timeout_ms`.
pub fn options_bad_timeout() -> String {
    format!("@options field `timeout_ms` must be a positive integer up to {MAX_TIMEOUT_MS}")
}

/// An options line that is not the first line (`line` is 1-based).
pub fn options_misplaced(line: usize) -> String {
    format!("The {OPTIONS_PREFIX} line must be the first line of the input; found one on line {line}")
}

// ---- Declarations ----------------------------------------------------------

/// Keywords shown as `@keyword value` tags in property comments.
pub const TAG_KEYWORDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
];
/// Longer tags (big defaults, long patterns) are left out.
pub const MAX_TAG_CHARS: usize = 80;
/// A tool's input type longer than this (UTF-16 units) loses its tags, then becomes `unknown`.
pub const INPUT_TYPE_MAX_CHARS: usize = 16_000;
/// Local `$ref` expansions per rendered schema.
pub const MAX_REF_EXPANSIONS: usize = 32;

// ---- Search ---------------------------------------------------------------

/// Words the tokenizer drops.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "that", "the",
    "this", "to", "with",
];
/// BM25 term-frequency saturation.
pub const BM25_K1: f64 = 1.2;
/// BM25 length normalisation.
pub const BM25_B: f64 = 0.75;
/// A query term in a tool's name counts this many times its IDF.
pub const NAME_WEIGHT: f64 = 3.0;
/// A query term in a tool's namespace counts this many times its IDF.
pub const NAMESPACE_WEIGHT: f64 = 0.5;
/// Results of a search without a limit.
pub const DEFAULT_SEARCH_LIMIT: u64 = 8;

// ---- The codemode tool ------------------------------------------------------

/// The tool's name.
pub const CODEMODE: &str = "codemode";
/// The parameter's description.
pub const CODE_DESCRIPTION: &str = "Raw JavaScript source.";
/// The system prompt's tool line.
pub const CODEMODE_SNIPPET: &str = "Run JavaScript that calls other tools";
/// The system prompt's rule while codemode is declared.
pub const CODEMODE_GUIDELINE: &str = "Use codemode to batch independent tool calls (Promise.allSettled), chain them, or filter large output, instead of many separate calls.";
/// The custom session entry holding one script's `store()` writes.
pub const STORE_ENTRY_TYPE: &str = "codemode-store";
/// Default of `codemode.inlineBudget`, in estimated tokens.
pub const DEFAULT_INLINE_BUDGET: f64 = 3000.0;

/// The start of the description.
pub const DESCRIPTION_INTRO: &str = "Run JavaScript that calls other tools. The input is raw JavaScript (not JSON, no code fence), run as an async function body in a QuickJS sandbox: top-level `await` and `return` work. No Node, file system, network, or timers.
- `await tools.<name>({ ...args })` resolves to a string, or an object if the tool's declaration says so, and rejects with an Error on failure. A tool whose declaration returns an object resolves on failure too when it returned that object; check its fields. Calls still running when the script ends are cancelled.
- Optional first line: `// @options: {\"max_output_tokens\": 10000, \"timeout_ms\": 60000}`";

/// The globals, one line each.
pub const DESCRIPTION_GLOBALS: &str = "Globals:
- `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)`, and top-level `return` add output; `exit()` ends the script. With several text items, each starts with a `==> text N/M <==` line, and `console` lines follow the other output in one `<console_output>` block. `image()` also saves the image to a temp file and the result names its path.
- `store(key, value)` and `load(key)` keep JSON values across codemode calls.
- `ALL_TOOLS`, `await searchTools(query, { limit?, namespace? })`, `await describeTool(name)`, `await describeNamespace(name)`: find unlisted tools, such as MCP tools.";

/// The `models` line, naming the script reference.
pub fn description_models(docs_path: &str) -> String {
    format!("- `models`: classifiers and image generation. Read {docs_path} first.")
}

/// The heading of the listed tools.
pub const NESTED_TOOLS: &str = "Nested tools:";
/// A namespace none of whose tools fit the budget.
pub const TOOLS_NOT_LISTED: &str = " (tools not listed)";
/// A namespace some of whose tools did not fit.
pub const SOME_TOOLS_NOT_LISTED: &str = " (some tools not listed)";
/// Between a tool's description and its declaration.
pub const DECLARATION_HEADING: &str = "codemode tool declaration:";

/// How scripts call a declared tool (`codemode.mode` `on`).
pub fn script_call_note(description: &str, identifier: &str, resolves_to: &str) -> String {
    format!("{description}\n\nCodemode: `tools.{identifier}(args)` resolves to {resolves_to}.")
}

/// What a call to a tool whose type spans lines resolves to.
pub fn resolves_to_long_type(name_json: &str) -> String {
    format!("a value; `await describeTool({name_json})` shows its type")
}

// ---- tool_search --------------------------------------------------------------

/// The tool's name.
pub const TOOL_SEARCH: &str = "tool_search";
/// The system prompt's tool line.
pub const TOOL_SEARCH_SNIPPET: &str = "Search for tools that are not loaded yet and load the matches";
/// The description: fixed, it never lists the searchable tools.
pub const TOOL_SEARCH_DESCRIPTION: &str = "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search`.";
/// `query`'s description.
pub const QUERY_DESCRIPTION: &str = "Search query for deferred tools.";
/// `limit`'s description.
pub const LIMIT_DESCRIPTION: &str = "Maximum number of tools to return. Defaults to 8.";
/// A blank query.
pub const QUERY_EMPTY: &str = "query must not be empty";
/// A limit that is not a positive integer.
pub const LIMIT_NOT_POSITIVE: &str = "limit must be a positive integer";
/// Nothing matched.
pub const NO_MATCHING_TOOLS: &str = "No matching tools found.";

/// The tools a search loaded: a heading, then `- <name>: <first description line>`.
pub fn loaded_tools(lines: &[String]) -> String {
    let plural = if lines.len() == 1 { "" } else { "s" };
    format!("Loaded {} tool{plural}. They are available from your next call:\n{}", lines.len(), lines.join("\n"))
}

// ---- The sandbox ------------------------------------------------------------

/// Heap limit of a script's VM (`InternalError: out of memory` beyond it).
pub const MEMORY_LIMIT_BYTES: usize = 256 * 1024 * 1024;
/// JavaScript stack limit (deep recursion throws `RangeError`), as the reference's worker.
pub const JS_STACK_BYTES: usize = 512 * 1024;
/// Stack of the thread a script runs on, well above the JavaScript limit.
pub const SCRIPT_THREAD_STACK: usize = 8 * 1024 * 1024;
/// Promise jobs run between two checks for a stop (a script spinning on `await null`).
pub const JOBS_PER_STOP_CHECK: usize = 50;
/// How long a cancelled tool call may take to finish once its script ended.
pub const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(2);
/// Characters of text and base64 image data one script may output.
pub const MAX_OUTPUT_CHARS: usize = 16 * 1024 * 1024;
/// `text()`, `image()` and `console` calls one script may make.
pub const MAX_OUTPUT_ITEMS: usize = 100_000;
/// Characters of JSON of one stored value.
pub const MAX_STORE_VALUE_CHARS: usize = 256 * 1024;
/// Characters of JSON of all stored values together (keys included).
pub const MAX_STORE_TOTAL_CHARS: usize = 1024 * 1024;
/// The file name the script is compiled as (stack traces name it).
pub const SCRIPT_FILE: &str = "codemode.js";
/// The file name of the runtime code (its frames are left out of stack traces).
pub const RUNTIME_FILE: &str = "codemode-runtime.js";
/// The script runs as the body of this async function (it shares the
/// script's first line, so line numbers match the script as written).
pub const SCRIPT_PREFIX: &str = "(async (tools, console) => {";
/// …and this closes it.
pub const SCRIPT_SUFFIX: &str = "\n})";

const STORE_HINT: &str = "store() is for small state such as IDs or summaries. Show images with image(), keep large data in variables, or write it to a file with a tool.";
const IMAGE_EXPECTS: &str = "image expects a non-empty image URL string, an object with image_url, or an image block { type: \"image\", data, mimeType }";

/// The texts the script runtime uses (`{placeholders}` are filled there).
pub fn sandbox_texts() -> serde_json::Value {
    serde_json::json!({
        "runtimeFile": RUNTIME_FILE,
        "readOnly": "Cannot assign to read only property '{key}' of a built-in",
        "undescribable": "The script threw a value that cannot be described",
        "missingMember": "{label}.{property} does not exist.",
        "didYouMean": " Did you mean {list}?",
        "available": " Available: {list}.",
        "checkMember": " Check for a member with \"{property}\" in {label}.",
        "closeMatches": 5,
        "listAllUpTo": 20,
        "toolsHint": "ALL_TOOLS lists every tool; searchTools(query) finds tools by topic.",
        "keyNotString": "{fn}() key must be a string",
        "notSerializableBecause": "store({key}) value is not JSON-serializable: {error}",
        "notSerializable": "store({key}) value is not JSON-serializable",
        "storeValueTooLarge": format!("store({{key}}) value has {{chars}} characters of JSON, more than the limit of {{limit}}. {STORE_HINT}"),
        "storeFull": format!("store is full: stored values would exceed {{limit}} characters of JSON. Delete keys with store(key, undefined). {STORE_HINT}"),
        "outputLimit": format!("script output exceeded the limit of {MAX_OUTPUT_CHARS} characters or {MAX_OUTPUT_ITEMS} text(), image(), and console calls. Print a summary instead, or write large data to a file with a tool."),
        "imageExpects": IMAGE_EXPECTS,
        "imageNotBlock": "image only accepts image blocks, got \"{type}\"",
        "imageNoData": "image expected image block data",
        "imageRemote": "remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
        "imageInvalid": "invalid image output. Pass a base64 data URI instead",
        "imageBadBase64": "invalid image output. The image data is not valid base64 (truncated or corrupted?)",
        "imageUnknownFormat": "invalid image output. The image data is not a PNG, JPEG, GIF, or WebP image",
        "stalled": STALLED,
    })
}

/// A script that waits on a promise nothing can settle.
pub const STALLED: &str =
    "The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here.";

/// A promise job failed outside the script (the runtime is broken).
pub const JOB_FAILED: &str = "Error: Promise job failed";

// ---- Results ------------------------------------------------------------------

/// Characters of a call's arguments shown in the result's `details.calls`.
pub const ARGS_PREVIEW_CHARS: usize = 200;
/// Characters of a call's error shown in `details.calls`.
pub const ERROR_PREVIEW_CHARS: usize = 500;

/// The first lines of a result.
pub fn result_header(ok: bool, wall_seconds: &str) -> String {
    let status = if ok { "Script completed" } else { "Script failed" };
    format!("{status}\nWall time {wall_seconds} seconds\nOutput:\n")
}

/// Before the error of a failed script.
pub const SCRIPT_ERROR: &str = "Script error:\n";
/// A failed script that made no call.
pub const NO_CALLS: &str = "No tool calls were made.";
/// A failed script's calls (`read (ok), bash (error)`).
pub fn calls_before_failure(list: &str) -> String {
    format!("Tool calls made before the failure (they are not undone): {list}")
}
/// A script that ran past `timeout_ms`.
pub fn timed_out(ms: u64) -> String {
    format!("Script timed out: Execution timed out after {ms} ms")
}
/// A script stopped by an abort.
pub fn aborted(reason: &str) -> String {
    format!("Script aborted: {reason}")
}
/// Why an aborted script stopped (the agent's abort carries no reason).
pub const ABORT_REASON: &str = "This operation was aborted";
/// The sandbox failed outside the script.
pub fn sandbox_failed(message: &str) -> String {
    format!("Script sandbox failed: {message}")
}
/// The runtime's report could not be read (a script that patched built-ins).
pub fn bridge_broken(what: &str) -> String {
    format!("Sandbox bridge broken: {what}. The script may have modified built-ins such as a prototype's toJSON.")
}
/// The script runtime ended without a result.
pub const VM_GONE: &str = "The script runtime ended before the script settled";
/// A failed tool call without text.
pub fn tool_failed(name: &str) -> String {
    format!("Tool \"{name}\" failed")
}
/// A call to a name the script runtime does not know.
pub fn unknown_callee(tool: bool, name: &str) -> String {
    format!("Unknown {} \"{name}\"", if tool { "tool" } else { "global" })
}

/// Output over budget: the start of the notice.
pub fn truncated_header(tokens: usize, lines: usize) -> String {
    format!("Warning: truncated output (original token count: {tokens})\nTotal output lines: {lines}\n\n")
}
/// Between the kept start and end.
pub fn tokens_truncated(tokens: usize) -> String {
    format!("…{tokens} tokens truncated…")
}
/// Where the full output is.
pub fn full_output(path: &str) -> String {
    format!("\n\n[Full output: {path} (read with offset/limit)]")
}
/// The full output could not be saved.
pub fn full_output_failed(error: &str) -> String {
    format!("\n\n[Could not save the full output: {error}]")
}
/// The prefix of spill and image files in the temp dir.
pub const OUTPUT_FILE_PREFIX: &str = "pi-codemode";
/// The extension of a spilled output.
pub const OUTPUT_FILE_EXTENSION: &str = ".txt";
/// The label before an image saved to a file.
pub fn image_saved(path: &str, kind: &str) -> String {
    format!("[Image saved to {path} ({kind})]")
}
/// The label before an image that could not be saved.
pub fn image_not_saved(kind: &str, error: &str) -> String {
    format!("[Image ({kind}) could not be saved: {error}]")
}

// ---- Script globals -------------------------------------------------------------

/// `searchTools()` without a query string.
pub const SEARCH_NEEDS_QUERY: &str = "searchTools() expects a query string";
/// A bad `searchTools()` limit.
pub const SEARCH_BAD_LIMIT: &str = "searchTools() limit must be a positive integer";
/// A bad `searchTools()` namespace.
pub const SEARCH_BAD_NAMESPACE: &str = "searchTools() namespace must be a string";
/// `describeTool()` without a name.
pub const DESCRIBE_TOOL_NEEDS_NAME: &str = "describeTool() expects a tool name";
/// `describeNamespace()` without a name.
pub const DESCRIBE_NAMESPACE_NEEDS_NAME: &str = "describeNamespace() expects a namespace name";

/// The model types of the catalogue.
pub const MODEL_TYPES: &[&str] = &["chat", "image", "classifier"];
/// An unknown model type (`value`: its JSON).
pub fn unknown_model_type(value: &str) -> String {
    format!("Unknown model type {value}. Use \"chat\", \"image\", or \"classifier\".")
}
/// A provider that is not a string.
pub const PROVIDER_NOT_STRING: &str = "provider must be a string";
/// `getModelOfType` without separate provider and id.
pub fn get_model_needs_strings(got: &str) -> String {
    format!(
        "models.getModelOfType(type, provider, id) expects three strings, got ({got}). The provider and the id are separate arguments, for example models.getModelOfType(\"classifier\", \"typesafe\", \"jev-latest\")."
    )
}
/// Where to find the usable models of a type.
pub fn list_hint(kind: &str) -> String {
    format!("List the {kind} models you can use with models.getAvailableOfType(\"{kind}\").")
}
/// A model call whose first argument is not a model.
pub fn expects_model(call: &str, kind_with_article: &str, got: &str, undefined_hint: bool, hint: &str) -> String {
    let extra =
        if undefined_hint { " models.getModelOfType() returns undefined for an unknown provider or id." } else { "" };
    format!("{call}() expects {kind_with_article} model as its first argument, got {got}.{extra} {hint}")
}
/// A model of another type.
pub fn wrong_model_type(reference: &str, actual: &str, wanted: &str, hint: &str) -> String {
    format!("\"{reference}\" is {actual} model, not {wanted} model. {hint}")
}
/// The docs section of a model call.
pub fn context_problem(call: &str, problem: &str, expected: &str, section: &str, docs_path: &str) -> String {
    format!("{call}() {problem}. Expected context: {expected}. See \"{section}\" in {docs_path}.")
}
/// The shape of `classify()`'s context.
pub const CLASSIFIER_CONTEXT: &str = "{ state: { ... }, images?: [{ type: \"image\", data: <base64>, mimeType }], questions: { <id>: { type: \"choice\", instructions, criteria: { <label>: <meaning> } } | { type: \"score\", instructions, criteria: [<lowest level>, ..., <highest level>] } | { type: \"bool\", instructions, criteria: { true: <meaning>, false: <meaning> } } } }";
/// The shape of `generateImages()`'s context.
pub const IMAGES_CONTEXT: &str = "{ input: [{ type: \"text\", text: <prompt> }, ...optional { type: \"image\", data: <base64>, mimeType } references] }";
/// The section of the script reference on `classify()`.
pub const CLASSIFY_SECTION: &str = "Classify";
/// The section of the script reference on `generateImages()`.
pub const IMAGES_SECTION: &str = "Generate images";
/// What `classify()` answers: no provider of this build runs classifiers.
pub const CLASSIFY_UNSUPPORTED: &str = "Classifier models are not available in this build of pi: none of the providers it supports (openai-completions, openai-responses, anthropic-messages) runs them.";
/// What `generateImages()` answers: no provider of this build generates images.
pub const IMAGES_UNSUPPORTED: &str = "Image models are not available in this build of pi: none of the providers it supports (openai-completions, openai-responses, anthropic-messages) generates images.";

// ---- models.* context checks (the text after `models.<call>() `) -------------

/// A question that is not an object.
pub fn question_not_object(at: &str, got: &str) -> String {
    format!("{at} must be a question object, got {got}")
}
/// A question without instructions.
pub fn instructions_not_string(at: &str) -> String {
    format!("{at}.instructions must be a string")
}
/// A `choice` question with bad criteria.
pub fn choice_criteria(at: &str) -> String {
    format!("{at} is a \"choice\" question, so criteria must map each label to its meaning")
}
/// A `score` question with bad criteria.
pub fn score_criteria(at: &str) -> String {
    format!("{at} is a \"score\" question, so criteria must list the levels as strings, lowest first")
}
/// A `bool` question with bad criteria.
pub fn bool_criteria(at: &str) -> String {
    format!("{at} is a \"bool\" question, so criteria must be {{ true: string, false: string }}")
}
/// A question of an unknown type (`got`: its JSON).
pub fn question_type(at: &str, got: &str) -> String {
    format!("{at}.type must be \"choice\", \"score\", or \"bool\", got {got}")
}
/// Where a question is.
pub fn question_path(id: &str) -> String {
    format!("context.questions.{id}")
}
/// A context that is not an object.
pub fn context_not_object(got: &str) -> String {
    format!("expects a context object as its second argument, got {got}")
}
/// `state` that is not an object.
pub fn state_not_object(got: &str) -> String {
    format!("context.state must be an object, got {got}")
}
/// `images` that is not an array.
pub fn images_not_array(got: &str) -> String {
    format!("context.images must be an array, got {got}")
}
/// An entry of `images` that is not an image block.
pub fn image_not_block(i: usize, got: &str) -> String {
    format!("context.images[{i}] must be an image block, got {got}")
}
/// `questions` that is not a map of questions.
pub fn questions_not_map(got: &str) -> String {
    format!("context.questions must map question IDs to questions, got {got}")
}
/// `input` that is not a non-empty array.
pub fn input_not_blocks(got: &str) -> String {
    format!("context.input must be a non-empty array of blocks, got {got}")
}
/// An entry of `input` that is not a text or image block.
pub fn input_block(i: usize, got: &str) -> String {
    format!("context.input[{i}] must be a text or image block, got {got}")
}

// ---- Output layout and the runtime's reports -----------------------------------

/// The line before each text item when there are several.
pub fn text_item(n: usize, total: usize, text: &str) -> String {
    format!("==> text {n}/{total} <==\n{text}")
}
/// The `console` lines, after the other output.
pub fn console_block(lines: &str) -> String {
    format!("<console_output>\n{lines}\n</console_output>")
}
/// What the runtime's report of a script's writes can be missing.
pub const WRITES_NOT_JSON: &str = "store writes is not valid JSON";
/// …
pub const WRITES_NOT_ARRAY: &str = "store writes are not an array";
/// …
pub const WRITES_MALFORMED: &str = "store writes contain a malformed entry";
/// A stored value that is not JSON (`key_json`: the key as JSON).
pub fn store_value_not_json(key_json: &str) -> String {
    format!("store value for {key_json} is not valid JSON")
}
/// A returned value that is not JSON.
pub const RETURN_NOT_JSON: &str = "return value is not valid JSON";
/// A script error that is not JSON.
pub const ERROR_NOT_JSON: &str = "script error is not valid JSON";
/// A script error that is not an object.
pub const ERROR_NOT_OBJECT: &str = "script error is not an object";
/// A script error without a message.
pub const ERROR_MALFORMED: &str = "script error is malformed";
/// Output past the limits the runtime enforces.
pub const OUTPUT_PAST_LIMITS: &str = "output past its limits";

// ---- Admission ------------------------------------------------------------------

/// Script runtimes alive at once in one pi process (as the reference's workers).
pub const DEFAULT_MAX_WORKERS: usize = 2;
/// The variable that changes [`DEFAULT_MAX_WORKERS`] (a positive integer).
pub const MAX_WORKERS_ENV: &str = "PI_CODEMODE_MAX_WORKERS";
/// How long a script waits for a free runtime before failing.
pub const WORKER_WAIT: std::time::Duration = std::time::Duration::from_secs(60);
/// After the error of a script that never got a runtime.
pub const DID_NOT_START: &str = "\n\nThe script did not start.";
/// A deadline that passed while the script waited for a runtime.
pub fn timed_out_waiting(ms: u64) -> String {
    format!("Script timed out: Execution timed out after {ms} ms while waiting for a free codemode worker")
}
/// No runtime became free in time.
pub fn no_worker(max: usize) -> String {
    format!(
        "No codemode worker became free within {} seconds. All {max} workers, shared by every session in this process, are held by other scripts. Retry after they finish.",
        WORKER_WAIT.as_secs()
    )
}
