//! Provider streams for gateways: every provider's stream in (accumulators → the stream events),
//! every provider's stream out (encoders ← events).
//!
//! An [`Accumulator`] reads one provider's stream items (chunk objects, SSE/NDJSON text) through
//! that provider's reader and a shared [`ledger`] that keeps the calls, gives ids and decodes
//! each call's arguments once, at its end; with a format engine it also finds calls written in
//! the text. An [`Encoder`] writes events as one provider's stream objects. Neither knows about
//! the gateway policies: [`crate::gate`] filters the events in between.
//!
//! One file per provider holds both directions: `openai` (Chat Completions), `anthropic`
//! (Messages), `responses` (OpenAI Responses), `gemini` (`streamGenerateContent`) and `ollama`
//! (`/api/chat` NDJSON).

mod anthropic;
mod gemini;
mod ledger;
mod ollama;
mod openai;
mod responses;
mod sse;
#[cfg(test)]
mod tests;
mod writer;

use std::borrow::Cow;

use crate::body::Shape;
use crate::json::{parse, JsonBuilder, JsonKind, JsonView, ParseError, ParseOptions, ValueBuilder};
use crate::stream::StreamParser;
use ledger::{Ledger, Out};

pub use sse::{documents, frame, Document};
pub use writer::Encoder;

/// Why a response ended, in the names of Chat Completions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
}

impl FinishReason {
    pub const NAMES: &'static str = "'stop', 'tool_calls', 'length' or 'content_filter'";

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::ToolCalls => "tool_calls",
            Self::Length => "length",
            Self::ContentFilter => "content_filter",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "stop" => Some(Self::Stop),
            "tool_calls" => Some(Self::ToolCalls),
            "length" => Some(Self::Length),
            "content_filter" => Some(Self::ContentFilter),
            _ => None,
        }
    }
}

/// Token counts, where the stream gave them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Input tokens read from a prompt cache (part of `input_tokens`).
    pub cached_input_tokens: Option<u64>,
    /// Output tokens spent on reasoning (part of `output_tokens`).
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Every count the other one has replaces this one's.
    fn merge(&mut self, other: Usage) {
        let take = |mine: &mut Option<u64>, theirs: Option<u64>| {
            if theirs.is_some() {
                *mine = theirs;
            }
        };
        take(&mut self.input_tokens, other.input_tokens);
        take(&mut self.output_tokens, other.output_tokens);
        take(&mut self.cached_input_tokens, other.cached_input_tokens);
        take(&mut self.reasoning_tokens, other.reasoning_tokens);
    }
}

/// What a stream says about its response besides text and calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    pub id: Option<String>,
    pub model: Option<String>,
    pub usage: Usage,
    pub finish_reason: Option<FinishReason>,
}

/// A stream item that cannot be read at all (not JSON, not an object): a transport problem,
/// not bad model output.
#[derive(Debug)]
pub enum FeedError<E> {
    NotJson(String),
    Build(E),
}

impl<E> From<E> for FeedError<E> {
    fn from(e: E) -> Self {
        FeedError::Build(e)
    }
}

enum Reader {
    OpenAI(openai::Reader),
    Anthropic(anthropic::Reader),
    Responses(responses::Reader),
    Gemini(gemini::Reader),
    Ollama(ollama::Reader),
}

/// One provider's stream → events.
pub struct Accumulator {
    reader: Reader,
    ledger: Ledger,
    finished: bool,
}

impl Accumulator {
    /// An accumulator for `provider` (`None` for `Shape::Auto`); `text_engine` reads the text
    /// for calls written in it.
    pub fn new(provider: Shape, text_engine: Option<StreamParser>) -> Option<Self> {
        let reader = match provider {
            Shape::Auto => return None,
            Shape::OpenAIChat => Reader::OpenAI(openai::Reader::default()),
            Shape::Anthropic => Reader::Anthropic(anthropic::Reader::default()),
            Shape::OpenAIResponses => Reader::Responses(responses::Reader::default()),
            Shape::Gemini => Reader::Gemini(gemini::Reader),
            Shape::Ollama => Reader::Ollama(ollama::Reader),
        };
        Some(Self {
            reader,
            ledger: Ledger::new(text_engine),
            finished: false,
        })
    }

    pub fn meta(&self) -> &Meta {
        &self.ledger.meta
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Feeds one stream item (a chunk or event object); appends the events it completes.
    /// Items that are not objects, and anything after [`finish`](Self::finish), are ignored.
    pub fn feed<I, B>(
        &mut self,
        item: &I,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        I: JsonView,
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if self.finished || item.kind() != JsonKind::Object {
            return Ok(());
        }
        let ledger = &mut self.ledger;
        let ended = match &mut self.reader {
            Reader::OpenAI(r) => r.read(item, ledger, builder, out)?,
            Reader::Anthropic(r) => r.read(item, ledger, builder, out)?,
            Reader::Responses(r) => r.read(item, ledger, builder, out)?,
            Reader::Gemini(r) => r.read(item, ledger, builder, out)?,
            Reader::Ollama(r) => r.read(item, ledger, builder, out)?,
        };
        if ended {
            self.finish(builder, out)?;
        }
        Ok(())
    }

    /// Feeds stream text: SSE (`data:` lines, several events allowed; `[DONE]` ends the stream),
    /// an NDJSON line (or several), or bare JSON.
    pub fn feed_text<B>(
        &mut self,
        text: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), FeedError<B::Error>>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        for document in documents(text) {
            match document {
                Document::Done => self.finish(builder, out)?,
                Document::Json(json) => {
                    match parse(&json, &mut ValueBuilder, ParseOptions::default()) {
                        Ok(item) if item.kind() == JsonKind::Object => {
                            self.feed(&item, builder, out)?
                        }
                        Ok(_) => {
                            return Err(FeedError::NotJson(format!(
                                "a stream item must be a JSON object, not {:?}",
                                preview(&json)
                            )))
                        }
                        Err(error) => {
                            let lines: Vec<&str> =
                                json.lines().filter(|l| !l.trim().is_empty()).collect();
                            if lines.len() < 2 {
                                // The value builder cannot fail: only syntax errors.
                                let ParseError::Syntax(error) = error;
                                return Err(FeedError::NotJson(format!(
                                    "a stream item is not JSON ({} at byte {}): {:?}",
                                    error.kind.message(),
                                    error.offset,
                                    preview(&json)
                                )));
                            }
                            // Several NDJSON lines in one piece of text.
                            for line in lines {
                                self.feed_text(line, builder, out)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Ends the stream: releases held text and ends every open call. Idempotent.
    pub fn finish<B>(&mut self, builder: &mut B, out: &mut Out<B>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        self.ledger.close(builder, out)?;
        self.finished = true;
        Ok(())
    }
}

/// The start of a bad item, for its error message.
fn preview(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(40) {
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// Runs `f` on the text of `value[key]` when it is a string.
fn with_str<I: JsonView, R>(value: &I, key: &str, f: impl FnOnce(&str) -> R) -> Option<R> {
    let member = value.get(key)?;
    member.as_str().map(f)
}

/// `value[key]` when it is an object.
fn object<I: JsonView>(value: &I, key: &str) -> Option<I> {
    value.get(key).filter(|v| v.kind() == JsonKind::Object)
}

/// `value[key]` as a count.
fn count<I: JsonView>(value: &I, key: &str) -> Option<u64> {
    value
        .get(key)
        .and_then(|v| v.as_i64())
        .and_then(|n| u64::try_from(n).ok())
}
