//! The resource tools against the fixture server: registration and exposure,
//! listings in the server's key order with pagination, errors, reading text,
//! text-typed blobs, images and binary contents.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use pi_agent::Exposure;
use pi_mcp::Registrar;
use pi_mcp::ServerExposure;
use pi_tools::Content;
use serde_json::{Value, json};

fn keys(v: &Value) -> Vec<String> {
    v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_tools_appear_only_with_a_server_that_offers_resources() {
    let (m, sink) = start(vec![server("plain", "ok", 10.0)]);
    ready(&m).await;
    assert!(sink.tool("list_mcp_resources").is_none(), "no server offers resources");
    let (m, sink) = start(vec![server("fx", "resources", 10.0), server("plain", "ok", 10.0)]);
    ready(&m).await;
    for name in ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"] {
        let t = sink.tool(name).unwrap_or_else(|| panic!("{name} registered"));
        assert_eq!(t.def().exposure, Exposure::Deferred, "codemode servers: registered deferred");
        assert_eq!(t.def().annotations.read_only_hint, Some(true));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_widest_exposure_wins_and_hidden_servers_do_not_count() {
    let mut direct = server("d", "resources", 10.0);
    direct.exposure = ServerExposure::Direct;
    let (m, sink) = start(vec![server("fx", "resources", 10.0), direct]);
    ready(&m).await;
    let t = sink.tool("read_mcp_resource").unwrap();
    assert_eq!((t.def().exposure, t.def().default_active), (Exposure::Direct, true));
    let mut hidden = server("h", "resources", 10.0);
    hidden.exposure = ServerExposure::Hidden;
    let (m, sink) = start(vec![hidden]);
    ready(&m).await;
    assert!(sink.tool("read_mcp_resource").is_none(), "a hidden server offers nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_keep_the_servers_objects_and_follow_pages() {
    let (m, sink) = start(vec![server("fx", "resources", 10.0), server("bad", "listfail", 10.0)]);
    ready(&m).await;
    let one = call(&sink, "list_mcp_resources", json!({"server": "fx"})).await;
    assert!(!one.is_error, "{}", one.text_content());
    let v: Value = serde_json::from_str(&one.text_content()).unwrap();
    assert_eq!(keys(&v), ["server", "resources", "nextCursor"]);
    assert_eq!(keys(&v["resources"][0]), ["server", "uri", "mimeType", "name"], "server's order, no icons");
    assert_eq!(one.structured, Some(v.clone()), "scripts get the same object");
    let next = call(&sink, "list_mcp_resources", json!({"server": "fx", "cursor": "p2"})).await;
    let v: Value = serde_json::from_str(&next.text_content()).unwrap();
    assert_eq!(
        v,
        json!({"server": "fx", "resources": [{"server": "fx", "name": "c", "uri": "fx://c.png", "mimeType": "image/png"}]}),
        "no MCP App resource"
    );
    let all = call(&sink, "list_mcp_resources", json!({})).await;
    let v: Value = serde_json::from_str(&all.text_content()).unwrap();
    let uris: Vec<&str> = v["resources"].as_array().unwrap().iter().filter_map(|r| r["uri"].as_str()).collect();
    assert_eq!(uris, ["fx://a.txt", "fx://b.bin", "fx://c.png"], "every page of every server");
    assert_eq!(v["errors"], json!([{"server": "bad", "error": "cannot list"}]));
    let t = call(&sink, "list_mcp_resource_templates", json!({"server": "fx"})).await;
    assert_eq!(
        t.text_content(),
        r#"{"server":"fx","resourceTemplates":[{"server":"fx","name":"t","uriTemplate":"fx://t/{id}"}]}"#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_clear_errors() {
    let (m, sink) = start(vec![server("fx", "resources", 10.0), server("plain", "ok", 10.0)]);
    ready(&m).await;
    let cases = [
        (
            "list_mcp_resources",
            json!({"server": "plain"}),
            r#"MCP server "plain" has no resources. Servers with resources: fx"#,
        ),
        (
            "read_mcp_resource",
            json!({"server": "nope", "uri": "x"}),
            r#"MCP server "nope" has no resources. Servers with resources: fx"#,
        ),
        ("read_mcp_resource", json!({"server": "fx", "uri": ""}), "uri must be provided"),
        ("read_mcp_resource", json!({"server": "fx", "uri": "fx://missing"}), "Resource fx://missing not found"),
        ("list_mcp_resources", json!({"server": "fx", "cursor": "zz"}), "bad cursor zz"),
    ];
    for (tool, args, want) in cases {
        let r = call(&sink, tool, args.clone()).await;
        assert!(r.is_error, "{tool} {args}");
        assert_eq!(r.text_content(), want, "{tool} {args}");
    }
    let ok = call(&sink, "read_mcp_resource", json!({"server": "fx", "uri": "fx://a.txt"})).await;
    assert_eq!((ok.text_content().as_str(), ok.is_error), ("alpha", false), "the server is still there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_gives_text_images_and_saved_binaries() {
    let (m, sink) = start(vec![server("fx", "resources", 10.0)]);
    ready(&m).await;
    let text = call(&sink, "read_mcp_resource", json!({"server": "fx", "uri": "fx://a.txt"})).await;
    assert_eq!(text.text_content(), "alpha");
    assert_eq!(
        text.structured,
        Some(
            json!({"server": "fx", "uri": "fx://a.txt", "contents": [{"uri": "fx://a.txt", "mimeType": "text/plain", "text": "alpha"}]})
        )
    );
    let json_blob = call(&sink, "read_mcp_resource", json!({"server": "fx", "uri": "fx://j.json"})).await;
    assert_eq!(json_blob.text_content(), r#"{"k":1}"#, "a text-typed blob is decoded");
    let image = call(&sink, "read_mcp_resource", json!({"server": "fx", "uri": "fx://c.png"})).await;
    assert!(matches!(&image.content[..], [Content::Image { mime_type, .. }] if mime_type == "image/png"));
    let bin = call(&sink, "read_mcp_resource", json!({"server": "fx", "uri": "fx://b.bin"})).await;
    let shown = bin.text_content();
    let path = shown.split(" saved to ").nth(1).unwrap().trim_end_matches(']');
    assert_eq!(std::fs::read(path).unwrap(), [0u8, 1, 2]);
    let _ = std::fs::remove_file(path);
}
