//! Validation of tool-call arguments against the tool's JSON Schema (docs/tools.md).
//!
//! The schema keywords are checked by the `jsonschema` crate (draft 2020-12 unless the schema's
//! `$schema` says otherwise). On top of it sits the reference's stricter rule: a required
//! property whose value is `null` or a whitespace-only string counts as missing, unless its own
//! schema allows `null`. Every failure becomes one message for the model: it names the tool and
//! the property path and ends with what to do on the retry.

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// A compiled argument schema; compile once per tool, validate many times. `Send + Sync`.
pub struct ArgumentValidator {
    required: Option<RequiredPlan>,
    validator: Validator,
}

/// One step of a path into the arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

impl ArgumentValidator {
    /// Compiles `schema`. An unusable schema (not a schema, unresolvable `$ref`, bad regex) is
    /// an error whose text says why.
    pub fn new(schema: &Value) -> Result<Self, String> {
        let validator = jsonschema::options()
            .with_draft(draft_of(schema))
            .build(schema)
            .map_err(|e| format!("the parameters schema is not a usable JSON Schema: {e}"))?;
        Ok(Self {
            required: RequiredPlan::of(schema),
            validator,
        })
    }

    /// The messages for everything wrong with `arguments`; empty when they are valid.
    ///
    /// ```
    /// use toolwire_core::validate::ArgumentValidator;
    /// let schema = serde_json::json!({"type": "object", "required": ["a", "b"]});
    /// let v = ArgumentValidator::new(&schema).unwrap();
    /// assert_eq!(
    ///     v.errors("f", &serde_json::json!({"b": "  "})),
    ///     ["Arguments for tool 'f' are missing required properties: a, b (given as null or \
    ///       blank). Retry the tool call and include these properties."],
    /// );
    /// ```
    pub fn errors(&self, tool: &str, arguments: &Value) -> Vec<String> {
        let mut missing = Vec::new();
        if let Some(plan) = &self.required {
            plan.missing(arguments, &mut Vec::new(), &mut missing);
        }
        if missing.is_empty() && self.validator.is_valid(arguments) {
            return Vec::new();
        }
        let blank: Vec<Vec<Step>> = missing
            .iter()
            .filter(|m| m.blank)
            .map(|m| m.path.clone())
            .collect();
        let mut unexpected: Vec<Vec<Step>> = Vec::new();
        let mut invalid: Vec<(Vec<Step>, String)> = Vec::new();
        for error in self.validator.iter_errors(arguments) {
            let path = steps_of(&error);
            // A blank required value is reported once, as missing, not also as e.g. a type error.
            if blank.iter().any(|b| path.starts_with(b)) {
                continue;
            }
            match error.kind() {
                ValidationErrorKind::Required { property } => {
                    let mut full = path;
                    full.push(Step::Key(property.as_str().unwrap_or_default().to_owned()));
                    if !missing.iter().any(|m| m.path == full) {
                        missing.push(Missing {
                            path: full,
                            blank: false,
                        });
                    }
                }
                ValidationErrorKind::AdditionalProperties { unexpected: names }
                | ValidationErrorKind::UnevaluatedProperties { unexpected: names } => {
                    for name in names {
                        let mut full = path.clone();
                        full.push(Step::Key(name.clone()));
                        unexpected.push(full);
                    }
                }
                _ => invalid.push((path, error.to_string())),
            }
        }
        unexpected.dedup();

        let mut messages = Vec::new();
        if !missing.is_empty() {
            let names: Vec<String> = missing
                .iter()
                .map(|m| {
                    let name = render(&m.path);
                    if m.blank {
                        format!("{name} (given as null or blank)")
                    } else {
                        name
                    }
                })
                .collect();
            messages.push(format!(
                "Arguments for tool '{tool}' are missing required properties: {}. Retry the \
                 tool call and include these properties.",
                names.join(", ")
            ));
        }
        if !unexpected.is_empty() {
            let names: Vec<String> = unexpected.iter().map(|p| render(p)).collect();
            messages.push(format!(
                "Arguments for tool '{tool}' have unexpected properties: {}. Retry the tool \
                 call without these properties.",
                names.join(", ")
            ));
        }
        for (path, reason) in invalid {
            messages.push(if path.is_empty() {
                format!(
                    "Arguments for tool '{tool}' are invalid: {reason}. Retry the tool call \
                     with corrected arguments."
                )
            } else {
                let at = render(&path);
                format!(
                    "Arguments for tool '{tool}' are invalid at '{at}': {reason}. Retry the \
                     tool call with a corrected value for '{at}'."
                )
            });
        }
        messages
    }
}

struct Missing {
    path: Vec<Step>,
    blank: bool,
}

/// Draft 2020-12 unless the schema names another draft in `$schema`.
fn draft_of(schema: &Value) -> jsonschema::Draft {
    use jsonschema::Draft;
    let declared = schema.get("$schema").and_then(Value::as_str).unwrap_or("");
    if declared.contains("draft-04") {
        Draft::Draft4
    } else if declared.contains("draft-06") {
        Draft::Draft6
    } else if declared.contains("draft-07") {
        Draft::Draft7
    } else if declared.contains("2019-09") {
        Draft::Draft201909
    } else {
        Draft::Draft202012
    }
}

fn steps_of(error: &ValidationError<'_>) -> Vec<Step> {
    error
        .instance_path()
        .iter()
        .map(|segment| match segment {
            LocationSegment::Property(key) => Step::Key(key.into_owned()),
            LocationSegment::Index(i) => Step::Index(i),
        })
        .collect()
}

/// `location.city`, `stops[2].name`; keys that are not plain words are quoted: `["a.b"]`.
fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Key(key) => {
                let plain = !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
                if !plain {
                    out.push_str(&format!("[{}]", Value::String(key.clone())));
                } else {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
            }
        }
    }
    out
}

/// What the required-but-blank rule needs from a schema, extracted once at compile time: the
/// required keys of each object schema (with whether `null` is a real value for them), and the
/// `properties`/`items` subschemas that lead to more of them.
#[derive(Default)]
struct RequiredPlan {
    required: Vec<(String, bool)>,
    properties: Vec<(String, RequiredPlan)>,
    items: Option<Box<RequiredPlan>>,
}

impl RequiredPlan {
    /// The plan of `schema`, or None when nothing under it is required.
    fn of(schema: &Value) -> Option<Self> {
        let properties = schema.get("properties").and_then(Value::as_object);
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|keys| {
                keys.iter()
                    .filter_map(Value::as_str)
                    .map(|key| {
                        let own = properties.and_then(|p| p.get(key));
                        (key.to_owned(), own.is_some_and(allows_null))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let plan = RequiredPlan {
            required,
            properties: properties
                .into_iter()
                .flatten()
                .filter_map(|(key, sub)| Some((key.clone(), RequiredPlan::of(sub)?)))
                .collect(),
            items: schema.get("items").and_then(RequiredPlan::of).map(Box::new),
        };
        let empty = plan.required.is_empty() && plan.properties.is_empty() && plan.items.is_none();
        (!empty).then_some(plan)
    }

    /// Required properties that are absent or blank, in `required` order, following
    /// `properties` and `items` where the instance has them (the validator reports the rest,
    /// e.g. under `allOf`).
    fn missing(&self, instance: &Value, path: &mut Vec<Step>, out: &mut Vec<Missing>) {
        match instance {
            Value::Object(members) => {
                for (key, null_allowed) in &self.required {
                    let blank = match members.get(key) {
                        None => false,
                        Some(value) if is_blank(value, *null_allowed) => true,
                        Some(_) => continue,
                    };
                    path.push(Step::Key(key.clone()));
                    out.push(Missing {
                        path: path.clone(),
                        blank,
                    });
                    path.pop();
                }
                for (key, sub) in &self.properties {
                    if let Some(value) = members.get(key) {
                        path.push(Step::Key(key.clone()));
                        sub.missing(value, path, out);
                        path.pop();
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = &self.items {
                    for (i, item) in items.iter().enumerate() {
                        path.push(Step::Index(i));
                        sub.missing(item, path, out);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
}

fn is_blank(value: &Value, null_allowed: bool) -> bool {
    match value {
        Value::Null => !null_allowed,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// Whether a property schema explicitly accepts `null` (`"type": "null"` or in a type list, or
/// `null` among `enum`/`const`): then `null` is a deliberate value, not a blank.
fn allows_null(schema: &Value) -> bool {
    let in_type = match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    in_type
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null))
        || schema.get("const") == Some(&Value::Null)
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|alts| alts.iter().any(allows_null))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, args: Value) -> Vec<String> {
        ArgumentValidator::new(&schema).unwrap().errors("f", &args)
    }

    fn weather() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "days": {"type": "integer"},
                "note": {"type": ["string", "null"]},
                "where": {
                    "type": "object",
                    "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                    "required": ["lat", "lon"],
                    "additionalProperties": false
                },
                "stops": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
                }
            },
            "required": ["city", "note"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_arguments_give_no_messages() {
        assert!(errors(weather(), json!({"city": "Oslo", "note": null, "days": 3})).is_empty());
    }

    #[test]
    fn missing_and_blank_required_are_one_message_in_path_order() {
        let got = errors(weather(), json!({"city": " \t", "where": {"lat": 1}}));
        assert_eq!(
            got,
            [
                "Arguments for tool 'f' are missing required properties: city (given as null or \
              blank), note, where.lon. Retry the tool call and include these properties."
            ]
        );
    }

    #[test]
    fn null_allowed_by_the_schema_is_not_blank_but_null_otherwise_is() {
        assert!(errors(weather(), json!({"city": "x", "note": null})).is_empty());
        let got = errors(weather(), json!({"city": null, "note": "n"}));
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].contains("missing required properties: city (given as null"));
    }

    #[test]
    fn wrong_type_and_enum_name_the_path_and_the_retry() {
        let got = errors(
            weather(),
            json!({"city": "x", "note": null, "days": "3", "unit": "k", "stops": [{"name": "a"}, {"name": 4}]}),
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().any(|m| m
            .starts_with("Arguments for tool 'f' are invalid at 'days': ")
            && m.ends_with("Retry the tool call with a corrected value for 'days'.")));
        assert!(got.iter().any(|m| m.contains("at 'unit'")));
        assert!(got.iter().any(|m| m.contains("at 'stops[1].name'")));
    }

    #[test]
    fn additional_properties_are_listed_with_their_paths() {
        let got = errors(
            weather(),
            json!({"city": "x", "note": null, "zz": 1, "where": {"lat": 1, "lon": 2, "alt": 3}}),
        );
        assert_eq!(
            got,
            [
                "Arguments for tool 'f' have unexpected properties: where.alt, zz. Retry the tool \
              call without these properties."
            ]
        );
    }

    #[test]
    fn non_object_arguments_and_odd_keys() {
        let got = errors(weather(), json!([1]));
        assert!(
            got[0].starts_with("Arguments for tool 'f' are invalid: "),
            "{got:?}"
        );
        let got = errors(json!({"type": "object", "required": ["a.b"]}), json!({}));
        assert!(got[0].contains(r#"properties: ["a.b"]."#), "{got:?}");
    }

    #[test]
    fn unusable_schemas_are_errors() {
        assert!(ArgumentValidator::new(&json!({"type": 5})).is_err());
        assert!(ArgumentValidator::new(&json!({"$ref": "https://example.com/s.json"})).is_err());
    }
}
