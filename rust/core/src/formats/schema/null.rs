//! Whether a property schema accepts JSON `null`. A schema's types may allow null while a
//! constraint beside them rejects it (`{"$ref": "#/$defs/Nullable", "enum": ["null"]}`,
//! `"not": {"type": "null"}`, a `oneOf` two of whose branches accept it): then the text `null`
//! is the string. Only a few keywords can reject null; every other one applies to other types
//! only, so the answer is a validator's for these, without compiling the schema.

use super::{local_ref, nullable, Types, COMBINATOR_DEPTH};
use crate::json::{JsonKind, JsonView};

/// Whether `schema` (in `root`, for its local `$ref`s) accepts `null`, by `type` (with
/// OpenAPI's `nullable`), `const`, `enum`, `not`, `allOf`, `anyOf`, `oneOf`, `$ref` and boolean
/// schemas. `None` where it cannot tell (a reference that names nothing, or too deep).
pub(super) fn accepts_null<V: JsonView>(root: &V, schema: &V, depth: usize) -> Option<bool> {
    match schema.kind() {
        JsonKind::Bool => return schema.as_bool(),
        JsonKind::Object if depth < COMBINATOR_DEPTH => {}
        _ => return None,
    }
    let listed = |values: Vec<V>| values.iter().any(|v| v.kind() == JsonKind::Null);
    let lists_values = schema.get("const").is_some() || schema.get("enum").is_some();
    if nullable(schema) && !lists_values {
        // OpenAPI's `nullable`, beside a type or a reference, adds null to what it allows.
        return Some(true);
    }
    if let Some(ty) = schema.get("type") {
        let words = match ty.kind() {
            JsonKind::String => vec![ty],
            JsonKind::Array => ty.items(),
            _ => Vec::new(),
        };
        let bit = |t: &V| t.as_str().map_or(0, Types::bit);
        // A word that is no JSON type (`custom`) leaves the value untyped: no answer.
        if words.is_empty() || words.iter().any(|t| bit(t) == 0) {
            return None;
        }
        if !words.iter().any(|t| bit(t) == Types::NULL) {
            return Some(false);
        }
    }
    if schema
        .get("const")
        .is_some_and(|value| value.kind() != JsonKind::Null)
        || schema
            .get("enum")
            .is_some_and(|values| !listed(values.items()))
    {
        return Some(false);
    }
    let branches = |key: &str| schema.get(key).map(|v| v.items()).unwrap_or_default();
    let each = |key: &str| -> Vec<Option<bool>> {
        let of = |branch: &V| accepts_null(root, branch, depth + 1);
        branches(key).iter().map(of).collect()
    };
    let reference = schema
        .get("$ref")
        .and_then(|r| r.as_str().map(str::to_owned));
    let mut known = true;
    let mut all = |answer: Option<bool>| match answer {
        Some(accepts) => accepts,
        None => {
            known = false;
            true
        }
    };
    if let Some(reference) = reference {
        let target = local_ref(root, &reference);
        if !all(target.and_then(|t| accepts_null(root, &t, depth + 1))) {
            return Some(false);
        }
    }
    if let Some(not) = schema.get("not") {
        // `not` rejects null where its schema surely accepts it.
        if accepts_null(root, &not, depth + 1) == Some(true) {
            return Some(false);
        }
    }
    if !each("allOf").into_iter().all(&mut all) {
        return Some(false);
    }
    let any_of = each("anyOf");
    if !any_of.is_empty() && any_of.iter().all(|a| *a == Some(false)) {
        return Some(false);
    }
    let one_of = each("oneOf");
    let accepting = one_of.iter().filter(|a| **a == Some(true)).count();
    if !one_of.is_empty() && one_of.iter().all(Option::is_some) && accepting != 1 {
        return Some(false);
    }
    let unknown = |answers: &[Option<bool>]| answers.iter().any(Option::is_none);
    if unknown(&any_of) || unknown(&one_of) {
        known = false;
    }
    known.then_some(true)
}

#[cfg(test)]
mod tests {
    use super::super::{property_types, Types};
    use crate::json::{parse, ParseOptions, Value, ValueBuilder};

    fn types(properties: &str) -> Types {
        let parameters = format!(
            r##"{{"$defs": {{"Nullable": {{"type": ["string", "null"]}},
                "String": {{"type": "string"}}}}, "properties": {{"p": {properties}}}}}"##
        );
        let parameters: Value =
            parse(&parameters, &mut ValueBuilder, ParseOptions::default()).unwrap();
        property_types(&parameters, "p")
    }

    #[test]
    fn a_constraint_beside_the_types_may_reject_null() {
        let text = Types(Types::STRING);
        for rejecting in [
            r##"{"$ref": "#/$defs/Nullable", "enum": ["null"]}"##,
            r##"{"$ref": "#/$defs/Nullable", "const": "null"}"##,
            r#"{"type": ["string", "null"], "not": {"type": "null"}}"#,
            r#"{"type": ["string", "null"], "oneOf": [{"type": "string"}, {"type": "integer"}]}"#,
        ] {
            assert_eq!(types(rejecting), text, "{rejecting}");
        }
        // Untyped but for null's rejection: any type but null.
        let any_but_null = Types(Types::ANY & !Types::NULL);
        for rejecting in [
            r##"{"allOf": [{"$ref": "#/$defs/Nullable"}, {"$ref": "#/$defs/String"}]}"##,
            r##"{"oneOf": [{"$ref": "#/$defs/Nullable"}, {"$ref": "#/$defs/Nullable"}]}"##,
            r#"{"oneOf": [{"type": "null"}, {}]}"#,
        ] {
            assert_eq!(types(rejecting), any_but_null, "{rejecting}");
        }
        // Null accepted, or not known to be rejected: the types as declared.
        let nullable = Types(Types::STRING | Types::NULL);
        for accepting in [
            r#"{"type": ["string", "null"]}"#,
            r#"{"type": "string", "nullable": true}"#,
            r##"{"type": ["string", "null"], "not": {"$ref": "#/$defs/Missing"}}"##,
            r#"{"type": ["string", "null"], "anyOf": [{"type": "null"}, {"minLength": 2}]}"#,
        ] {
            assert_eq!(types(accepting), nullable, "{accepting}");
        }
        assert_eq!(
            types(r#"{"oneOf": [{"type": "null"}, {"type": "string"}]}"#),
            nullable
        );
        assert_eq!(
            types(r##"{"$ref": "#/$defs/String", "nullable": true}"##),
            nullable
        );
        // A type word that is no JSON type leaves the value untyped.
        assert_eq!(types("{}"), Types(0));
        assert_eq!(types(r#"{"type": "custom", "enum": []}"#), Types(0));
    }
}
