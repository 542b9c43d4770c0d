//! Response bodies: read whole or poured piece by piece into a [`Sink`], abandoned when they
//! stall or grow too large, and a protobuf `Status` error body decoded.

use super::super::protobuf;
use http_body_util::BodyExt;
use std::time::Duration;

/// The largest response body read whole (a LIST page, a discovery document): memory stays
/// bounded whatever a server sends. Pages of 500 objects are far smaller; an unpaginated LIST
/// (`--chunk-size 0`) of a huge collection may not be.
pub(super) const MAX_RESPONSE_BYTES: usize = 2 << 30;

/// Why a response body was abandoned.
#[derive(Debug, PartialEq)]
pub(super) enum Refused {
    Stalled(Duration),
    TooLarge,
    /// What a [`Sink`] made of the body was wrong.
    Undecodable(String),
}

/// Where [`Cluster::get_into`] pours a response body, piece by piece as it arrives.
pub trait Sink {
    /// Takes the next piece; an error ends the request with it (the body could not be read).
    fn push(&mut self, piece: &[u8]) -> Result<(), String>;
}

/// A response's `Content-Type`, empty when absent or not text.
pub(super) fn content_type<B>(response: &http::Response<B>) -> String {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// A `Status` error body in the protobuf encoding (what a server sends for an error when the
/// request accepted protobuf).
pub(super) fn protobuf_status(body: &[u8]) -> Option<kube::core::Status> {
    let envelope = protobuf::envelope(body).ok()?;
    let status = protobuf::status(envelope.raw).ok()?;
    Some(kube::core::Status {
        status: Some(if status.status == "Success" {
            kube::core::response::StatusSummary::Success
        } else {
            kube::core::response::StatusSummary::Failure
        }),
        code: status.code,
        message: status.message,
        reason: status.reason,
        ..Default::default()
    })
}

/// A body, whole, unless a frame takes longer than `stall_limit` or it grows past `max_bytes`.
pub(super) async fn collect<B>(
    body: B,
    stall_limit: Option<Duration>,
    max_bytes: usize,
) -> Result<Result<Vec<u8>, Refused>, kube::Error>
where
    B: http_body::Body<Data = bytes::Bytes, Error = kube::Error> + Unpin,
{
    let mut out = Vec::new();
    let poured = pour(body, stall_limit, max_bytes, |piece| {
        out.extend_from_slice(piece);
        Ok(())
    })
    .await?;
    Ok(poured.map(|()| out))
}

/// Hands `body` to `sink` piece by piece, abandoned when it stops moving for `stall_limit` or
/// grows past `max_bytes`.
pub(super) async fn pour<B>(
    mut body: B,
    stall_limit: Option<Duration>,
    max_bytes: usize,
    mut sink: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<Result<(), Refused>, kube::Error>
where
    B: http_body::Body<Data = bytes::Bytes, Error = kube::Error> + Unpin,
{
    let mut poured = 0usize;
    loop {
        let frame = match stall_limit {
            Some(limit) => match tokio::time::timeout(limit, body.frame()).await {
                Ok(frame) => frame,
                Err(_) => return Ok(Err(Refused::Stalled(limit))),
            },
            None => body.frame().await,
        };
        let Some(frame) = frame else {
            return Ok(Ok(()));
        };
        if let Ok(data) = frame?.into_data() {
            poured += data.len();
            if poured > max_bytes {
                return Ok(Err(Refused::TooLarge));
            }
            if let Err(reason) = sink(&data) {
                return Ok(Err(Refused::Undecodable(reason)));
            }
        }
    }
}
