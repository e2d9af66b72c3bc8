use super::*;

#[test]
fn items_put_server_first_keep_the_servers_key_order_and_drop_icons_and_apps() {
    let raw = json!({"resources": [
        {"uri": "a://1", "name": "one", "mimeType": "text/plain", "icons": [{"src": "x"}], "description": "d"},
        {"uri": "ui://app", "name": "app"},
        {"uri": "b://2", "name": "two", "mimeType": "text/html;profile=mcp-app"},
        "not an object",
        {"uri": "c://3", "name": "three"}
    ]});
    let out = items(&raw, "resources", "srv");
    assert_eq!(out.len(), 2);
    let keys: Vec<&String> = out[0].as_object().map(|o| o.keys().collect()).unwrap_or_default();
    assert_eq!(keys, ["server", "uri", "name", "mimeType", "description"]);
    assert_eq!(out[1], json!({"server": "srv", "uri": "c://3", "name": "three"}));
}

#[test]
fn items_of_a_malformed_answer_are_empty() {
    assert!(items(&json!({"resources": "x"}), "resources", "s").is_empty());
    assert!(items(&json!(null), "resources", "s").is_empty());
}

#[test]
fn empty_arguments_count_as_missing() {
    let args = json!({"server": "", "uri": "u", "cursor": 3});
    assert_eq!(arg(&args, "server"), None);
    assert_eq!(arg(&args, "uri"), Some("u"));
    assert_eq!(arg(&args, "cursor"), None, "not a string");
}

#[test]
fn specs_are_the_references() {
    let names: Vec<&str> = KINDS_IN_ORDER.iter().map(|k| k.name()).collect();
    assert_eq!(names, spec::NAMES);
    let read = Kind::Read.parameters();
    assert_eq!(read["required"], json!(["server", "uri"]));
    assert_eq!(read["additionalProperties"], json!(false));
    let list = Kind::List.parameters();
    assert!(list.get("required").is_none());
    assert_eq!(Kind::List.output_schema()["required"], json!(["resources"]));
    assert_eq!(Kind::Templates.output_schema()["required"], json!(["resourceTemplates"]));
    assert_eq!(Kind::Read.output_schema()["required"], json!(["server", "uri", "contents"]));
}

const KINDS_IN_ORDER: [Kind; 3] = spec::KINDS;

#[test]
fn resource_tools_are_read_only_and_take_the_given_exposure() {
    let servers: Servers = Arc::default();
    let t = ResourceTool::new(Kind::Read, servers, Exposure::Deferred, false);
    assert_eq!(t.def().annotations.read_only_hint, Some(true));
    assert_eq!(t.def().exposure, Exposure::Deferred);
    assert!(t.output_schema().is_some());
}

#[test]
fn an_unknown_server_names_the_servers_with_resources() {
    let servers: Servers = Arc::default();
    let t = ResourceTool::new(Kind::List, servers, Exposure::Direct, true);
    assert_eq!(t.server("nope").err().map(|e| e.to_string()), Some(text::no_resources("nope", &[])));
}
