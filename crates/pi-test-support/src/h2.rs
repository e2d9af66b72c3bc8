//! HTTP/2 without TLS ("h2c" with prior knowledge, as the AWS SDK speaks to
//! an `http://` endpoint): the mock server answers Bedrock ConverseStream
//! requests (`POST …/model/{id}/converse-stream`) over it with event-stream
//! frames ([`crate::eventstream`]). A `.cut()` turn resets the stream after
//! half of its frames; `.stall()` sends half and then nothing.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::{HTTP_CHUNK_BYTES, RecordedRequest, SCRIPT_EXHAUSTED, State, eventstream, lock};

/// The first bytes of an HTTP/2 connection.
pub(crate) const PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// Whether the connection opens with the HTTP/2 preface (looked at without
/// reading it: an HTTP/1.1 request goes on to the usual handler).
pub(crate) async fn starts_with_preface(sock: &TcpStream) -> bool {
    let mut first = [0u8; 14];
    for _ in 0..1000 {
        match sock.peek(&mut first).await {
            Ok(n) if n > 0 && first[..n] != PREFACE[..n] => return false,
            Ok(n) if n >= PREFACE.len() => return true,
            Ok(0) | Err(_) => return false,
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(1)).await,
        }
    }
    false
}

/// A response body fed by a channel (an `Err` resets the stream).
struct ChannelBody(mpsc::Receiver<Result<Bytes, std::io::Error>>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|o| o.map(|r| r.map(Frame::data)))
    }
}

/// Serve one HTTP/2 connection.
pub(crate) async fn serve(sock: TcpStream, state: Arc<Mutex<State>>) {
    let service = hyper::service::service_fn(move |req| answer(req, state.clone()));
    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
        .serve_connection(TokioIo::new(sock), service)
        .await;
}

async fn read_body(mut body: Incoming) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(Ok(frame)) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        if let Ok(data) = frame.into_data() {
            out.extend_from_slice(&data);
        }
    }
    out
}

fn plain(code: u16, headers: &[(String, String)], body: &str) -> Response<ChannelBody> {
    let (tx, rx) = mpsc::channel(1);
    let _ = tx.try_send(Ok(Bytes::from(body.to_string())));
    let mut r = Response::builder().status(code).header("content-type", "application/json");
    for (k, v) in headers {
        r = r.header(k.as_str(), v.as_str());
    }
    r.body(ChannelBody(rx)).unwrap_or_else(|_| Response::new(ChannelBody(mpsc::channel(1).1)))
}

async fn answer(req: Request<Incoming>, state: Arc<Mutex<State>>) -> Result<Response<ChannelBody>, Infallible> {
    let method = req.method().to_string();
    let path = req.uri().path_and_query().map(|p| p.to_string()).unwrap_or_default();
    let mut headers: Vec<(String, String)> = Vec::new();
    if let Some(a) = req.uri().authority() {
        headers.push(("host".into(), a.to_string()));
    }
    headers.extend(
        req.headers().iter().map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())),
    );
    let raw_body = String::from_utf8_lossy(&read_body(req.into_body()).await).into_owned();
    let (turn, index) = {
        let mut st = lock(&state);
        st.requests.push(RecordedRequest {
            method,
            path: path.clone(),
            headers,
            body: serde_json::from_str(&raw_body).unwrap_or(Value::Null),
            raw_body,
        });
        let i = st.served;
        st.served += 1;
        (st.turns.pop_front(), i)
    };
    if !path.split('?').next().unwrap_or("").ends_with("/converse-stream") {
        return Ok(plain(404, &[], &json!({"message": format!("mock server: unknown path {path}")}).to_string()));
    }
    let Some(turn) = turn else {
        return Ok(plain(400, &[], &json!({"message": SCRIPT_EXHAUSTED}).to_string()));
    };
    if !turn.delay.is_zero() {
        tokio::time::sleep(turn.delay).await;
    }
    if let Some((code, body)) = &turn.status {
        return Ok(plain(*code, &turn.headers, body));
    }
    let frames = match &turn.raw_frames {
        Some(raw) => vec![raw.clone()],
        None => eventstream::converse_frames(&turn, index),
    };
    let upto = if turn.cut || turn.stall { frames.len().div_ceil(2).max(1).min(frames.len()) } else { frames.len() };
    let bytes: Vec<u8> = frames[..upto].concat();
    let (tx, rx) = mpsc::channel(16);
    let (cut, stall) = (turn.cut, turn.stall);
    tokio::spawn(async move {
        for piece in bytes.chunks(HTTP_CHUNK_BYTES) {
            if tx.send(Ok(Bytes::copy_from_slice(piece))).await.is_err() {
                return;
            }
        }
        if cut {
            let _ = tx.send(Err(std::io::Error::other("mock server: stream cut"))).await;
        } else if stall {
            tx.closed().await;
        }
    });
    let resp = Response::builder()
        .status(200)
        .header("content-type", "application/vnd.amazon.eventstream")
        .header("x-amzn-requestid", format!("req-{index}"))
        .body(ChannelBody(rx))
        .unwrap_or_else(|_| Response::new(ChannelBody(mpsc::channel(1).1)));
    Ok(resp)
}
