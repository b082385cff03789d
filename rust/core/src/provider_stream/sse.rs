//! Stream text: the JSON documents an SSE or NDJSON piece of text holds, and the framing of a
//! provider's stream objects for the wire.

use std::borrow::Cow;

use crate::body::Shape;

/// One document of stream text.
#[derive(Debug, PartialEq, Eq)]
pub enum Document<'a> {
    /// JSON text of one stream item.
    Json(Cow<'a, str>),
    /// `[DONE]`: the end of an OpenAI stream.
    Done,
}

fn document(data: Cow<'_, str>) -> Option<Document<'_>> {
    let trimmed = data.trim();
    if trimmed.is_empty() {
        None
    } else if trimmed == "[DONE]" {
        Some(Document::Done)
    } else if trimmed.len() == data.len() {
        Some(Document::Json(data))
    } else {
        Some(Document::Json(Cow::Owned(trimmed.to_owned())))
    }
}

/// The documents of a piece of stream text.
///
/// SSE (any line is a field: `data:`, `event:`, `id:`, `retry:` or a `:` comment): each event's
/// `data:` lines, joined by newlines; a blank line ends an event, so several events may come in
/// one piece. Otherwise the text is one document (an NDJSON line, or bare JSON).
pub fn documents(text: &str) -> Vec<Document<'_>> {
    let is_field = |line: &str| {
        line.starts_with("data:")
            || line.starts_with(':')
            || line.starts_with("event:")
            || line.starts_with("id:")
            || line.starts_with("retry:")
    };
    if !text.lines().any(is_field) {
        return document(Cow::Borrowed(text)).into_iter().collect();
    }
    let mut found = Vec::new();
    let mut data: Option<Cow<'_, str>> = None;
    for line in text.lines().chain(std::iter::once("")) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            found.extend(data.take().and_then(document));
        } else if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            data = Some(match data.take() {
                None => Cow::Borrowed(value),
                Some(before) => Cow::Owned(format!("{before}\n{value}")),
            });
        }
    }
    found
}

/// One stream object as the provider sends it on the wire: an SSE event (with its `event:`
/// line for Anthropic and Responses, whose objects carry a `type`), or an NDJSON line for
/// Ollama. `json` is the object's JSON text.
pub fn frame(provider: Shape, kind: Option<&str>, json: &str) -> String {
    match (provider, kind) {
        (Shape::Ollama, _) => format!("{json}\n"),
        (Shape::Anthropic | Shape::OpenAIResponses, Some(kind)) => {
            format!("event: {kind}\ndata: {json}\n\n")
        }
        _ => format!("data: {json}\n\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        documents(text)
            .into_iter()
            .map(|d| match d {
                Document::Json(json) => json.into_owned(),
                Document::Done => "DONE".to_owned(),
            })
            .collect()
    }

    #[test]
    fn sse_events_ndjson_and_bare_json() {
        assert_eq!(texts("data: {\"a\": 1}"), ["{\"a\": 1}"]);
        assert_eq!(texts("event: x\ndata: {}\n\n"), ["{}"]);
        assert_eq!(texts("data: [DONE]\n\n"), ["DONE"]);
        assert_eq!(texts(": keep-alive"), Vec::<String>::new());
        assert_eq!(
            texts("data: {\"a\":\ndata: 1}\n\ndata: {}\r\n\r\n"),
            ["{\"a\":\n1}", "{}"]
        );
        assert_eq!(texts("  {\"done\": true}\n"), ["{\"done\": true}"]);
        assert_eq!(texts("\n"), Vec::<String>::new());
    }

    #[test]
    fn framing() {
        assert_eq!(frame(Shape::OpenAIChat, None, "{}"), "data: {}\n\n");
        assert_eq!(
            frame(Shape::Anthropic, Some("ping"), "{}"),
            "event: ping\ndata: {}\n\n"
        );
        assert_eq!(frame(Shape::Ollama, None, "{}"), "{}\n");
    }
}
