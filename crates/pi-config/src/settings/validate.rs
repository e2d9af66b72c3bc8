//! Settings validation (requirement B3): every key pi knows has a shape; a
//! value of the wrong shape is removed from its layer with a diagnostic
//! naming the file, the key and the expected type, so it can never replace a
//! good value from the other layer. Unknown keys are kept silently.
//!
//! The shapes follow the reference's published `settings.schema.json` (types
//! and allowed values); ranges it only clamps at use are not checked here.

use std::path::Path;

use serde_json::{Map, Value};

use super::Diagnostic;
use crate::text;

/// Thinking levels.
const LEVELS: &[&str] = &["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// The largest integer JavaScript represents exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// What a value must look like.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Check {
    Bool,
    Str,
    Num,
    NonNegNum,
    NonNegInt,
    StrArray,
    NonEmptyStrArray,
    Object,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A boolean or one of these strings.
    BoolOr(&'static [&'static str]),
    /// A non-negative number or one of these strings.
    NonNegNumOr(&'static [&'static str]),
    /// A number or one of these strings.
    NumOr(&'static [&'static str]),
    /// `packages`: strings or objects with a `source` string.
    Packages,
    /// `outputPad`: 0 or 1.
    ZeroOrOne,
    /// `terminal.images`: `kitty`, `iterm2`, `auto` or `false`.
    TerminalImages,
}

fn quoted_list(vals: &[&str]) -> String {
    let q: Vec<String> = vals.iter().map(|v| format!("\"{v}\"")).collect();
    q.join(", ")
}

fn is_str_array(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
}

fn non_neg(v: &Value) -> bool {
    v.as_f64().is_some_and(|n| n.is_finite() && n >= 0.0)
}

fn one_of(v: &Value, vals: &[&str]) -> bool {
    v.as_str().is_some_and(|s| vals.contains(&s))
}

impl Check {
    pub(crate) fn ok(self, v: &Value) -> bool {
        match self {
            Check::Bool => v.is_boolean(),
            Check::Str => v.is_string(),
            Check::Num => v.is_number(),
            Check::NonNegNum => non_neg(v),
            Check::NonNegInt => v.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER),
            Check::StrArray => is_str_array(v),
            Check::NonEmptyStrArray => is_str_array(v) && v.as_array().is_some_and(|a| !a.is_empty()),
            Check::Object => v.is_object(),
            Check::Enum(vals) => one_of(v, vals),
            Check::BoolOr(vals) => v.is_boolean() || one_of(v, vals),
            Check::NonNegNumOr(vals) => non_neg(v) || one_of(v, vals),
            Check::NumOr(vals) => v.is_number() || one_of(v, vals),
            Check::Packages => v
                .as_array()
                .is_some_and(|a| a.iter().all(|p| p.is_string() || p.get("source").is_some_and(Value::is_string))),
            Check::ZeroOrOne => v.as_f64().is_some_and(|n| n == 0.0 || n == 1.0),
            Check::TerminalImages => v == &Value::Bool(false) || one_of(v, &["kitty", "iterm2", "auto"]),
        }
    }

    /// "must be …" completion.
    pub(crate) fn expected(self) -> String {
        match self {
            Check::Bool => "a boolean".into(),
            Check::Str => "a string".into(),
            Check::Num => "a number".into(),
            Check::NonNegNum => "a non-negative number".into(),
            Check::NonNegInt => "a non-negative integer".into(),
            Check::StrArray => "an array of strings".into(),
            Check::NonEmptyStrArray => "a non-empty array of strings".into(),
            Check::Object => "an object".into(),
            Check::Enum(vals) => format!("one of {}", quoted_list(vals)),
            Check::BoolOr(vals) => format!("a boolean or {}", quoted_list(vals)),
            Check::NonNegNumOr(vals) => format!("a non-negative number or {}", quoted_list(vals)),
            Check::NumOr(vals) => format!("a number or {}", quoted_list(vals)),
            Check::Packages => "an array of package sources (strings or objects with a \"source\" string)".into(),
            Check::ZeroOrOne => "0 or 1".into(),
            Check::TerminalImages => "one of \"kitty\", \"iterm2\", \"auto\" or false".into(),
        }
    }
}

/// Known keys and their shapes; `*` matches every key of an object. A parent
/// comes before its children, so children are only checked inside objects.
pub(crate) const RULES: &[(&[&str], Check)] = {
    use Check::*;
    &[
        (&["$schema"], Str),
        (&["lastChangelogVersion"], Str),
        (&["extensionChangelogVersions"], Object),
        (&["extensionChangelogVersions", "*"], Str),
        (&["defaultProvider"], Str),
        (&["defaultModel"], Str),
        (&["defaultThinkingLevel"], Enum(LEVELS)),
        (&["modelThinkingLevels"], Object),
        (&["modelThinkingLevels", "*"], Enum(LEVELS)),
        (&["transport"], Enum(&["auto", "sse", "websocket", "websocket-cached"])),
        (&["sessionShareDestination"], Enum(&["auto", "gist", "radius"])),
        (&["steeringMode"], Enum(&["all", "one-at-a-time"])),
        (&["followUpMode"], Enum(&["all", "one-at-a-time"])),
        (&["queueMode"], Enum(&["all", "one-at-a-time"])),
        (&["websockets"], Bool),
        (&["theme"], Str),
        (&["checkpoints"], Object),
        (&["checkpoints", "enabled"], Bool),
        (&["checkpoints", "maxSizeMb"], NonNegInt),
        (&["checkpoints", "keepDays"], NonNegInt),
        (&["checkpoints", "maxStoreMb"], NonNegInt),
        (&["compaction"], Object),
        (&["compaction", "enabled"], Bool),
        (&["compaction", "reserveTokens"], NonNegInt),
        (&["compaction", "keepRecentTokens"], NonNegInt),
        (&["compaction", "modelOverrides"], Object),
        (&["compaction", "modelOverrides", "*"], Object),
        (&["compaction", "modelOverrides", "*", "reserveTokens"], NonNegInt),
        (&["compaction", "modelOverrides", "*", "keepRecentTokens"], NonNegInt),
        (&["branchSummary"], Object),
        (&["branchSummary", "reserveTokens"], Num),
        (&["branchSummary", "skipPrompt"], Bool),
        (&["retry"], Object),
        (&["retry", "enabled"], Bool),
        (&["retry", "maxRetries"], NonNegNum),
        (&["retry", "baseDelayMs"], NonNegNum),
        (&["retry", "maxAgentDelayMs"], NonNegNum),
        (&["retry", "maxDelayMs"], NonNegNum),
        (&["retry", "provider"], Object),
        (&["retry", "provider", "timeoutMs"], NonNegNum),
        (&["retry", "provider", "maxRetries"], NonNegNum),
        (&["retry", "provider", "maxRetryDelayMs"], NonNegNum),
        (&["hideThinkingBlock"], Bool),
        (&["showCacheMissNotices"], Bool),
        (&["externalEditor"], Str),
        (&["shellPath"], Str),
        (&["quietStartup"], BoolOr(&["header"])),
        (&["shellCommandPrefix"], Str),
        (&["npmCommand"], StrArray),
        (&["selfUpdateCommand"], NonEmptyStrArray),
        (&["collapseChangelog"], Bool),
        (&["enableInstallTelemetry"], Bool),
        (&["enableAnalytics"], Bool),
        (&["trackingId"], Str),
        (&["packages"], Packages),
        (&["extensions"], StrArray),
        (&["deviceId"], Str),
        (&["skills"], StrArray),
        (&["prompts"], StrArray),
        (&["themes"], StrArray),
        (&["enableSkillCommands"], Bool),
        (&["terminal"], Object),
        (&["terminal", "showImages"], Bool),
        (&["terminal", "imageWidthCells"], Num),
        (&["terminal", "clearOnShrink"], Bool),
        (&["terminal", "showTerminalProgress"], Bool),
        (&["terminal", "hyperlinks"], BoolOr(&["auto"])),
        (&["terminal", "images"], TerminalImages),
        (&["terminal", "trueColor"], BoolOr(&["auto"])),
        (&["images"], Object),
        (&["images", "autoResize"], Bool),
        (&["images", "blockImages"], Bool),
        (&["enabledModels"], StrArray),
        (&["defaultTools"], StrArray),
        (&["doubleEscapeAction"], Enum(&["fork", "tree", "none"])),
        (&["treeFilterMode"], Enum(&["default", "no-tools", "user-only", "labeled-only", "all"])),
        (&["thinkingBudgets"], Object),
        (&["thinkingBudgets", "minimal"], Num),
        (&["thinkingBudgets", "low"], Num),
        (&["thinkingBudgets", "medium"], Num),
        (&["thinkingBudgets", "high"], Num),
        (&["editorPaddingX"], Num),
        (&["outputPad"], ZeroOrOne),
        (&["autocompleteMaxVisible"], Num),
        (&["showHardwareCursor"], Bool),
        (&["markdown"], Object),
        (&["markdown", "codeBlockIndent"], Str),
        (&["markdown", "mermaid"], Enum(&["off", "final", "streaming"])),
        (&["warnings"], Object),
        (&["warnings", "anthropicExtraUsage"], Bool),
        (&["codemode"], Object),
        (&["codemode", "mode"], Enum(&["on", "only"])),
        (&["codemode", "inlineBudget"], NonNegNum),
        (&["sessionDir"], Str),
        (&["httpProxy"], Str),
        (&["httpIdleTimeoutMs"], NonNegNumOr(&["disabled"])),
        (&["cacheWarming"], Enum(&["off", "streaming", "idle"])),
        (&["websocketConnectTimeoutMs"], NonNegNumOr(&["disabled"])),
        (&["tuiMode"], Enum(&["regular", "fullscreen"])),
        (&["fullscreenExitOutput"], Enum(&["transcript", "resume-hint"])),
        (&["fullscreenScrollbar"], Enum(&["auto", "always", "hidden"])),
        (&["fullscreenCopyOnSelect"], Bool),
        (&["fullscreenWheelScrollLines"], NumOr(&["auto"])),
        // beyond.md B5: the OS sandbox. The user layer and a trusted
        // project's are read separately (a project may only tighten it).
        (&["sandbox"], Object),
        (&["sandbox", "mode"], Enum(&["off", "read-only", "workspace-write"])),
        (&["sandbox", "network"], Bool),
        (&["sandbox", "writableRoots"], StrArray),
        (&["sandbox", "allowWrite"], StrArray),
        (&["sandbox", "hidden"], StrArray),
        (&["sandbox", "readable"], StrArray),
        (&["sandbox", "environment"], Object),
        (&["sandbox", "environment", "keep"], StrArray),
        (&["sandbox", "environment", "remove"], StrArray),
    ]
};

/// The rule for a concrete key path, if pi knows it.
pub(crate) fn rule_for(path: &[&str]) -> Option<Check> {
    RULES
        .iter()
        .find(|(p, _)| p.len() == path.len() && p.iter().zip(path).all(|(a, b)| *a == "*" || a == b))
        .map(|(_, c)| *c)
}

fn apply(
    obj: &mut Map<String, Value>,
    rule: &[&str],
    check: Check,
    prefix: &mut Vec<String>,
    file: &Path,
    diags: &mut Vec<Diagnostic>,
) {
    let Some((head, rest)) = rule.split_first() else { return };
    let keys: Vec<String> = if *head == "*" {
        obj.keys().cloned().collect()
    } else if obj.contains_key(*head) {
        vec![head.to_string()]
    } else {
        return;
    };
    for k in keys {
        prefix.push(k.clone());
        if rest.is_empty() {
            if obj.get(&k).is_some_and(|v| !check.ok(v)) {
                obj.shift_remove(&k);
                let key = prefix.join(".");
                diags.push(Diagnostic {
                    message: text::settings_wrong_type(file, &key, &check.expected()),
                    path: file.to_path_buf(),
                    key: Some(key),
                });
            }
        } else if let Some(Value::Object(child)) = obj.get_mut(&k) {
            apply(child, rest, check, prefix, file, diags);
        }
        prefix.pop();
    }
}

/// Remove every known key with a value of the wrong shape from one layer.
/// (`defaultProjectTrust` and the global-only keys are handled by the loader.)
pub(crate) fn validate_layer(layer: &mut Map<String, Value>, file: &Path, diags: &mut Vec<Diagnostic>) {
    for (rule, check) in RULES {
        apply(layer, rule, *check, &mut Vec::new(), file, diags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(v: Value) -> (Value, Vec<String>) {
        let mut m = v.as_object().unwrap().clone();
        let mut d = Vec::new();
        validate_layer(&mut m, Path::new("/s.json"), &mut d);
        (Value::Object(m), d.into_iter().map(|d| d.message).collect())
    }

    #[test]
    fn wrong_types_are_dropped_with_a_message() {
        let (v, d) = run(json!({"defaultTools": "read", "shellPath": 3, "x": 1}));
        assert_eq!(v, json!({"x": 1}));
        assert_eq!(
            d,
            vec![
                "/s.json: \"shellPath\" must be a string; ignored",
                "/s.json: \"defaultTools\" must be an array of strings; ignored",
            ]
        );
    }

    #[test]
    fn nested_and_wildcard_keys() {
        let (v, d) = run(json!({
            "retry": {"enabled": "yes", "maxRetries": 2, "provider": {"maxRetries": -1}},
            "compaction": {"modelOverrides": {"a/b.1": {"reserveTokens": 1.5, "keepRecentTokens": 10}}},
            "modelThinkingLevels": {"m": "huge", "n": "low"},
            "terminal": "big"
        }));
        assert_eq!(
            v,
            json!({
                "retry": {"maxRetries": 2, "provider": {}},
                "compaction": {"modelOverrides": {"a/b.1": {"keepRecentTokens": 10}}},
                "modelThinkingLevels": {"n": "low"}
            })
        );
        assert_eq!(
            d,
            vec![
                "/s.json: \"modelThinkingLevels.m\" must be one of \"off\", \"minimal\", \"low\", \"medium\", \"high\", \"xhigh\", \"max\"; ignored",
                "/s.json: \"compaction.modelOverrides.a/b.1.reserveTokens\" must be a non-negative integer; ignored",
                "/s.json: \"retry.enabled\" must be a boolean; ignored",
                "/s.json: \"retry.provider.maxRetries\" must be a non-negative number; ignored",
                "/s.json: \"terminal\" must be an object; ignored",
            ]
        );
    }

    #[test]
    fn unions_and_specials() {
        let ok = json!({
            "quietStartup": "header", "terminal": {"images": false, "hyperlinks": "auto"},
            "httpIdleTimeoutMs": "disabled", "outputPad": 0, "packages": ["npm:x", {"source": "git:y"}],
            "compaction": {"reserveTokens": 16384.0}
        });
        assert_eq!(run(ok.clone()), (ok, vec![]));
        let (_, d) = run(json!({"quietStartup": "yes", "terminal": {"images": true}, "outputPad": 2,
            "packages": [{"autoload": true}], "selfUpdateCommand": []}));
        assert_eq!(d.len(), 5, "{d:?}");
        assert!(d[0].ends_with("\"quietStartup\" must be a boolean or \"header\"; ignored"));
    }

    #[test]
    fn sandbox_keys_are_validated() {
        let ok = json!({"sandbox": {"mode": "read-only", "network": false, "writableRoots": ["~/c"],
            "allowWrite": [".git"], "environment": {"keep": ["A"], "remove": ["B"]}}});
        assert_eq!(run(ok.clone()), (ok, vec![]));
        let (v, d) = run(json!({"sandbox": {"mode": "strict", "network": "no", "environment": {"keep": "A"}}}));
        assert_eq!(v, json!({"sandbox": {"environment": {}}}));
        assert_eq!(
            d,
            vec![
                "/s.json: \"sandbox.mode\" must be one of \"off\", \"read-only\", \"workspace-write\"; ignored",
                "/s.json: \"sandbox.network\" must be a boolean; ignored",
                "/s.json: \"sandbox.environment.keep\" must be an array of strings; ignored",
            ]
        );
    }

    #[test]
    fn every_rule_parent_precedes_its_children() {
        for (i, (path, _)) in RULES.iter().enumerate() {
            if path.len() > 1 {
                let parent = &path[..path.len() - 1];
                assert!(RULES[..i].iter().any(|(p, _)| *p == parent), "{path:?}");
            }
        }
    }
}
