//! Random frames (events with random JSON made of the names the client
//! reads), corrupted bytes and cuts anywhere: reading ends with a result.

use proptest::prelude::*;
use serde_json::Value;
use tokio::sync::mpsc;

use super::frames::FrameReader;
use super::frames::testing::{event, frame};
use super::stream::read_stream;
use crate::emitter::Emitter;
use crate::model::Model;

const NAMES: &[&str] =
    &["messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata", "other"];
const KEYS: &[&str] = &[
    "contentBlockIndex",
    "start",
    "toolUse",
    "toolUseId",
    "name",
    "delta",
    "text",
    "input",
    "reasoningContent",
    "signature",
    "stopReason",
    "usage",
    "inputTokens",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec!["end_turn", "tool_use", "x", "{\"a\":", ""]).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    let one = prop_oneof![
        (prop::sample::select(NAMES), json_value()).prop_map(|(n, v)| event(n, &v.to_string())),
        Just(frame(&[(":message-type", "exception"), (":exception-type", "throttlingException")], b"{}")),
        prop::collection::vec(any::<u8>(), 0..24),
    ];
    (prop::collection::vec(one, 0..12), any::<Option<(usize, u8)>>()).prop_map(|(frames, flip)| {
        let mut body = frames.concat();
        if let Some((at, bits)) = flip
            && !body.is_empty()
        {
            let i = at % body.len();
            body[i] ^= bits;
        }
        body
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn any_body_ends_with_a_result(body in body(), cut in 1usize..64) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let model = Model { api: "bedrock-converse-stream".into(), ..Default::default() };
        rt.block_on(async {
            let (tx, _rx) = mpsc::channel(4 * body.len() + 16);
            let mut em = Emitter::new(tx, &model);
            let mut frames = FrameReader::from_chunks(body.chunks(cut).map(<[u8]>::to_vec).collect());
            let _ = read_stream(&mut frames, &mut em).await;
        });
    }
}
