//! Typing the raw-text parameter values of qwen3_coder and glm45 (docs/formats.md).
//!
//! With a schema type for the parameter: `string` keeps the text as written (`"03106"` stays a
//! string); `integer`, `number`, `boolean`, `null`, `object` and `array` decode the text as JSON
//! (objects and arrays also as a Python literal, which models often write) and keep it only if
//! the decoded value has that type; a JSON string whose text decodes to that type is that value
//! (`"42"` for a number is `42`: the model quoted it), and an object or array written escaped,
//! as the inside of a JSON string (`[{\"id\": 1}]`), is that object or array. A failed
//! coercion keeps the string; a call is never dropped.
//! A schema without `type` is typed by the values its `const` or `enum` allow, else by its
//! `anyOf`/`oneOf` branches (any of them) and its `allOf` branches (all of them); `nullable: true`
//! adds `null` unless the schema lists its values; `null` is left out again where no branch
//! accepts it (a constraint beside the types: `enum`, `const`, `not`, an exclusive `oneOf`,
//! [`null`]). An integer written `42.0` or `4.2e1` is the integer, exactly, where the schema
//! asks for an integer.
//! Without a type: the JSON value when the text is valid JSON, or Python's `True`/`False`/`None`,
//! else the string. Integers beyond 64 bits are kept exact.
//!
//! Whitespace: a value read as anything but a string is read without the whitespace around it
//! (`\n  42\n` is `42`). A string loses only the layout of the markup: the one newline after
//! the opening tag and the one before the closing tag when it has both (an inline value's
//! newline at one end is the model's: `return 1\n`), and, when the closing tag stands
//! indented on its own line (pretty-printed XML), the indentation its lines share. Its other
//! whitespace is the model's: with the template's layout (`<parameter=old_str>\n    return
//! x\n</parameter>`) the leading indentation of `    return x` stays, as a code editing tool
//! needs it.

use std::borrow::Cow;
use std::collections::HashMap;

pub(crate) mod layout;
mod null;

use super::literal::{parse_literal, LitErr};
use crate::json::{parse, JsonBuilder, JsonKind, JsonStr, JsonView, ParseError, ParseOptions};
use layout::string_text;

/// JSON Schema `type` words, as a bit set (empty: any type).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Types(u8);

impl Types {
    /// A string, whatever the schema says (a value the model marked as one).
    pub(crate) const TEXT: Types = Types(Self::STRING);

    const STRING: u8 = 1;
    const INTEGER: u8 = 2;
    const NUMBER: u8 = 4;
    const BOOLEAN: u8 = 8;
    const OBJECT: u8 = 16;
    const ARRAY: u8 = 32;
    const NULL: u8 = 64;
    /// Every type word's bit: what no schema type leaves unknown.
    const ANY: u8 = 127;

    fn bit(word: &str) -> u8 {
        match word {
            "string" => Self::STRING,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "null" => Self::NULL,
            _ => 0,
        }
    }

    /// The types a property schema allows: `type` (a word or a list), else those of the values
    /// `const` or `enum` allow, else the union over `anyOf`/`oneOf`.
    fn of_schema<V: JsonView>(schema: &V, depth: usize) -> Types {
        let mut bits = 0;
        if let Some(ty) = schema.get("type") {
            match ty.kind() {
                JsonKind::String => bits |= Self::bit(ty.as_str().unwrap_or_default()),
                JsonKind::Array => {
                    for item in ty.items() {
                        bits |= Self::bit(item.as_str().unwrap_or_default());
                    }
                }
                _ => {}
            }
        } else if let Some(value) = schema.get("const") {
            bits = Self::of_value(&value);
        } else if let Some(values) = schema.get("enum").filter(|v| v.kind() == JsonKind::Array) {
            for value in values.items() {
                match Self::of_value(&value) {
                    0 => return Types(0),
                    bit => bits |= bit,
                }
            }
        } else if depth < 4 {
            for key in ["anyOf", "oneOf"] {
                for option in schema.get(key).map(|v| v.items()).unwrap_or_default() {
                    let types = Self::of_schema(&option, depth + 1);
                    if types.0 == 0 {
                        return Types(0);
                    }
                    bits |= types.0;
                }
            }
            // `allOf`: the types every branch that names some allows (a branch that names none,
            // `{"minLength": 0}`, allows any).
            let mut all: Option<u8> = None;
            for branch in schema.get("allOf").map(|v| v.items()).unwrap_or_default() {
                let types = Self::of_schema(&branch, depth + 1).0;
                if types != 0 {
                    all = Some(all.map_or(types, |all| all & types));
                }
            }
            if let Some(all) = all {
                bits = if bits == 0 { all } else { bits & all };
            }
        }
        if bits != 0 && nullable(schema) && !values_only(schema, depth) {
            bits |= Self::NULL;
        }
        Types(bits)
    }

    /// The type bits of a JSON value of `kind` (`integral`: a number without a fraction, which
    /// is an integer as well); 0 for none.
    fn bits_of(kind: JsonKind, integral: bool) -> u8 {
        match kind {
            JsonKind::String => Self::STRING,
            JsonKind::Number if integral => Self::INTEGER | Self::NUMBER,
            JsonKind::Number => Self::NUMBER,
            JsonKind::Bool => Self::BOOLEAN,
            JsonKind::Object => Self::OBJECT,
            JsonKind::Array => Self::ARRAY,
            JsonKind::Null => Self::NULL,
            JsonKind::Other => 0,
        }
    }

    /// The type bits of a value a schema names (`const`, `enum`): a number allows any number.
    fn of_value<V: JsonView>(value: &V) -> u8 {
        Self::bits_of(value.kind(), false)
    }

    /// These types (a parameter's, from the schema) narrowed to the type the markup names
    /// (K2 Horizon's `<ifm|arg_type>integer</ifm|arg_type>`; `array[string]` names `array`): the
    /// named type where the schema allows it or says nothing, else the schema's. An unknown
    /// word (`any`) leaves them as they are.
    pub(crate) fn narrowed_to(self, word: &str) -> Types {
        let word = word.split('[').next().unwrap_or_default().trim();
        match Self::bit(&word.to_ascii_lowercase()) {
            0 => self,
            bit if self.0 == 0 || self.0 & bit != 0 => Types(bit),
            _ => self,
        }
    }

    /// Whether these are known types that allow a list and not an object.
    pub(crate) fn list_not_object(self) -> bool {
        self.0 & Self::ARRAY != 0 && self.0 & Self::OBJECT == 0
    }

    /// Whether these are known types that allow an object and not a list.
    pub(crate) fn object_not_list(self) -> bool {
        self.0 & Self::OBJECT != 0 && self.0 & Self::ARRAY == 0
    }

    /// Whether these are known types, none of them a string.
    pub(crate) fn excludes_string(self) -> bool {
        self.0 != 0 && self.0 & Self::STRING == 0
    }

    fn allows(self, kind: JsonKind, integral: bool) -> bool {
        self.0 & Self::bits_of(kind, integral) != 0
    }
}

/// Whether a schema says `nullable: true` (OpenAPI's spelling of a `null` alternative).
fn nullable<V: JsonView>(schema: &V) -> bool {
    schema.get("nullable").and_then(|v| v.as_bool()) == Some(true)
}

/// Whether a schema allows only the values it lists (`const`, `enum`, or a combinator of such
/// schemas): `nullable` adds no `null` to those (OpenAPI: `null` must be listed).
fn values_only<V: JsonView>(schema: &V, depth: usize) -> bool {
    if schema.get("const").is_some() || schema.get("enum").is_some() {
        return true;
    }
    if depth >= 4 {
        return false;
    }
    let options: Vec<V> = ["anyOf", "oneOf"]
        .iter()
        .flat_map(|key| schema.get(key).map(|v| v.items()).unwrap_or_default())
        .collect();
    let all = schema.get("allOf").map(|v| v.items()).unwrap_or_default();
    (!options.is_empty() && options.iter().all(|o| values_only(o, depth + 1)))
        || all.iter().any(|b| values_only(b, depth + 1))
}

/// Parameter types by tool and parameter name, as the format parsers ask for them (`Sync`:
/// batch extraction shares its options between threads).
pub trait ParamTypes: std::fmt::Debug + Sync {
    /// The types of a parameter (empty when unknown).
    fn types(&self, tool: &str, parameter: &str) -> Types;
    /// Whether the schema of `tool` lists `parameter` among its `properties`; `None` when no
    /// tool of that name is offered.
    fn has_parameter(&self, tool: &str, parameter: &str) -> Option<bool>;
    /// Whether a tool of that name is offered.
    fn has_tool(&self, tool: &str) -> bool {
        self.has_parameter(tool, "").is_some()
    }
    /// The names of the tools offered, each once.
    fn tool_names(&self) -> Vec<String>;
}

/// The one tool a call that names none is meant for (a Kimi id that is only the call's index):
/// the only tool offered, else the only one whose schema lists every key of the call's
/// arguments (`keys`, `None` when they could not be read). `None` when no single tool fits.
pub(crate) fn only_fitting_tool(tools: &dyn ParamTypes, keys: Option<&[String]>) -> Option<String> {
    let mut names = tools.tool_names();
    if names.len() == 1 {
        return names.pop();
    }
    let keys = keys?;
    let mut fitting = names.into_iter().filter(|name| {
        keys.iter()
            .all(|key| tools.has_parameter(name, key) == Some(true))
    });
    let first = fitting.next()?;
    fitting.next().is_none().then_some(first)
}

/// A tool definition's function object: OpenAI/Ollama wrap it in `function`.
fn definition<V: JsonView>(tool: &V) -> V {
    tool.get("function")
        .filter(|f| f.kind() == JsonKind::Object)
        .unwrap_or_else(|| tool.clone())
}

/// A definition's parameters schema, under any key `Tool.from_dict` reads.
pub fn definition_parameters<V: JsonView>(definition: &V) -> Option<V> {
    ["parameters", "input_schema", "schema"]
        .into_iter()
        .find_map(|key| definition.get(key))
}

/// How deep root combinators and `$ref`s are followed (a cycle of `$ref`s ends there).
const COMBINATOR_DEPTH: usize = 4;

/// Calls `f` with each `properties` object of a parameters schema: its own, and those of the
/// branches of a root `anyOf`, `oneOf` or `allOf` (a schema whose fields depend on a `kind`),
/// with a local `$ref` (`#/$defs/…`, `#/definitions/…`) followed.
fn each_properties<V: JsonView>(root: &V, schema: &V, depth: usize, f: &mut impl FnMut(&V)) {
    let Some(resolved) = followed(root, schema, depth) else {
        return;
    };
    if let Some(properties) = resolved.get("properties") {
        f(&properties);
    }
    if depth < COMBINATOR_DEPTH {
        for key in ["anyOf", "oneOf", "allOf"] {
            for branch in resolved.get(key).map(|v| v.items()).unwrap_or_default() {
                each_properties(root, &branch, depth + 1, f);
            }
        }
    }
}

/// `schema`, or the schema its local `$ref` names in `root` (followed while `depth` is below
/// [`COMBINATOR_DEPTH`]); `None` for a reference that names nothing, or too deep.
fn followed<V: JsonView>(root: &V, schema: &V, depth: usize) -> Option<V> {
    match schema
        .get("$ref")
        .and_then(|r| r.as_str().map(str::to_owned))
    {
        Some(reference) if depth < COMBINATOR_DEPTH => {
            followed(root, &local_ref(root, &reference)?, depth + 1)
        }
        Some(_) => None,
        None => Some(schema.clone()),
    }
}

/// The schema a local JSON pointer (`#/$defs/Name`, `~1` and `~0` escaped) names in `root`.
fn local_ref<V: JsonView>(root: &V, reference: &str) -> Option<V> {
    let path = reference.strip_prefix("#/")?;
    let mut at = root.clone();
    for segment in path.split('/') {
        let segment = percent_decoded(segment)?;
        at = at.get(&segment.replace("~1", "/").replace("~0", "~"))?;
    }
    Some(at)
}

/// A URI fragment's segment with its `%XX` escapes decoded (`Caf%C3%A9` is `Café`), as RFC 6901
/// reads a pointer written in a URI; `None` when they decode to no UTF-8 text.
fn percent_decoded(segment: &str) -> Option<Cow<'_, str>> {
    if !segment.contains('%') {
        return Some(Cow::Borrowed(segment));
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) if bytes[i] == b'%' => {
                out.push(byte);
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// The schemas a parameters schema gives `parameter`, in every `properties` it holds
/// ([`each_properties`]); a key is matched by `get`, else as its text (`entries`).
fn property_schemas<V: JsonView>(parameters: &V, parameter: &str) -> Vec<V> {
    let mut found = Vec::new();
    each_properties(parameters, parameters, 0, &mut |properties| {
        let property = properties.get(parameter).or_else(|| {
            let mut entries = properties.entries();
            let at = entries.iter().rposition(|(key, _)| key == parameter)?;
            Some(entries.swap_remove(at).1)
        });
        found.extend(property);
    });
    found
}

/// Parameter types per tool, read once from the tool definitions (for a stream, which asks
/// for them chunk after chunk).
#[derive(Clone, Debug, Default)]
pub struct ToolSchemas {
    tools: HashMap<String, HashMap<String, Types>>,
}

impl ToolSchemas {
    /// Reads tools in any shape `Tool.from_dict` accepts: neutral (`parameters`), OpenAI/Ollama
    /// (`{"type": "function", "function": {…}}`), Anthropic (`input_schema`), ex_athena
    /// (`schema`). Tools without a readable name are ignored.
    pub fn from_tools<V: JsonView>(tools: &[V]) -> Self {
        let mut schemas = ToolSchemas::default();
        for tool in tools {
            let tool = definition(tool);
            let Some(name) = tool.get("name").and_then(|n| n.as_str().map(str::to_owned)) else {
                continue;
            };
            let mut params = HashMap::new();
            if let Some(parameters) = definition_parameters(&tool) {
                let mut keys = Vec::new();
                each_properties(&parameters, &parameters, 0, &mut |properties| {
                    keys.extend(properties.entries().into_iter().map(|(key, _)| key));
                });
                for key in keys {
                    let types = property_types(&parameters, &key);
                    params.insert(key, types);
                }
            }
            schemas.tools.insert(name, params);
        }
        schemas
    }
}

impl ParamTypes for ToolSchemas {
    fn types(&self, tool: &str, parameter: &str) -> Types {
        self.tools
            .get(tool)
            .and_then(|params| params.get(parameter))
            .copied()
            .unwrap_or_default()
    }

    fn has_parameter(&self, tool: &str, parameter: &str) -> Option<bool> {
        self.tools
            .get(tool)
            .map(|params| params.contains_key(parameter))
    }

    fn tool_names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }
}

/// Tool definitions read on demand, in any shape [`ToolSchemas::from_tools`] reads and with the
/// same results: only the called tool is looked up and only its called parameters are read, so
/// a parse costs the same however many tools and properties are passed (a binding implements
/// [`ParamTypes`] with these, reading the user's definitions as they are). The last definition
/// of a name wins; a property key is matched by `get`, else as its text (`entries`).
///
/// This one: the last definition named `tool` (its function object; a caller reading several
/// parameters of one call looks the tool up once).
pub fn tool_definition<V: JsonView>(
    tools: impl DoubleEndedIterator<Item = V>,
    tool: &str,
) -> Option<V> {
    tools
        .rev()
        .map(|t| definition(&t))
        .find(|d| d.get("name").is_some_and(|n| n.as_str() == Some(tool)))
}

/// Whether a tool definition ([`tool_definition`]) lists `parameter` among its `properties`
/// (or those of a root combinator's branches).
pub fn has_property<V: JsonView>(definition: &V, parameter: &str) -> bool {
    definition_parameters(definition)
        .is_some_and(|parameters| !property_schemas(&parameters, parameter).is_empty())
}

/// The names of tool definitions ([`tool_definition`]), each once.
pub fn tool_names<V: JsonView>(tools: impl Iterator<Item = V>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for tool in tools {
        let name = definition(&tool)
            .get("name")
            .and_then(|n| n.as_str().map(str::to_owned));
        if let Some(name) = name.filter(|name| !names.contains(name)) {
            names.push(name);
        }
    }
    names
}

/// The types of `parameter` in a tool's parameters schema ([`definition_parameters`]): the
/// union over the branches that declare it (unknown when one of them gives no type), without
/// `null` where no branch accepts it ([`null::accepts_null`]: a constraint beside the types
/// may reject it).
pub fn property_types<V: JsonView>(parameters: &V, parameter: &str) -> Types {
    let properties = property_schemas(parameters, parameter);
    let Types(bits) = declared_types(parameters, &properties);
    let rejects_null = |property: &V| null::accepts_null(parameters, property, 0) == Some(false);
    if (bits == 0 || bits & Types::NULL != 0)
        && !properties.is_empty()
        && properties.iter().all(rejects_null)
    {
        let bits = if bits == 0 { Types::ANY } else { bits };
        return Types(bits & !Types::NULL);
    }
    Types(bits)
}

/// The union of the types the schemas `properties` (of one parameter, in `parameters`) declare.
fn declared_types<V: JsonView>(parameters: &V, properties: &[V]) -> Types {
    let mut bits = 0;
    for property in properties.iter().cloned() {
        // A property may name its schema by a local `$ref` (`{"$ref": "#/$defs/Code"}`); a
        // `type` written beside the reference says it outright.
        // `nullable` beside the reference adds `null` to what the target allows.
        let nullable = nullable(&property);
        let property = match property.get("type") {
            Some(_) => property,
            None => match followed(parameters, &property, 0) {
                Some(target) => target,
                None => return Types(0),
            },
        };
        match Types::of_schema(&property, 0) {
            Types(0) => return Types(0),
            Types(types) if nullable && !values_only(&property, 0) => {
                bits |= types | Types::NULL;
            }
            Types(types) => bits |= types,
        }
    }
    Types(bits)
}

/// A Python literal word (`True`, `False`, `None`) of a type `types` allows.
fn python_word<B: JsonBuilder>(
    builder: &mut B,
    word: &str,
    types: Types,
) -> Option<Result<B::Value, B::Error>> {
    let any = types.0 == 0;
    match word {
        "True" | "False" if any || types.0 & Types::BOOLEAN != 0 => {
            Some(builder.boolean(word == "True"))
        }
        "None" if any || types.0 & Types::NULL != 0 => Some(builder.null()),
        _ => None,
    }
}

/// The value of a raw-text parameter (the text between its tags, as written), typed as the
/// module documentation says. A value read as another type than a string is read without the
/// whitespace around it; a string keeps its text but for the layout newlines ([`string_text`]).
pub(crate) fn typed_value<B>(
    builder: &mut B,
    raw: &str,
    types: Types,
    options: ParseOptions,
) -> Result<B::Value, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let string = |builder: &mut B| builder.string(JsonStr::from_utf8(&string_text(raw)));
    if types.0 == Types::STRING {
        return string(builder);
    }
    let trimmed = raw.trim();
    let integral = !trimmed.contains(['.', 'e', 'E']);
    match parse(trimmed, builder, options) {
        // A number beyond any float (`1e309`, or over 309 digits) is no JSON value: the text
        // as written.
        Ok(value) if (!integral || trimmed.len() > 309) && !finite(&value) => {
            return string(builder)
        }
        Ok(value) => {
            if types.0 == 0 || types.allows(value.kind(), integral) {
                return Ok(value);
            }
            // An integer written with a fraction or exponent (`42.0`, `4.2e1`) is an integer,
            // as JSON Schema counts it: its exact digits, when no fraction is left.
            if value.kind() == JsonKind::Number && types.0 & Types::INTEGER != 0 {
                if let Some(digits) = integral_digits(trimmed) {
                    match parse(&digits, builder, options) {
                        Ok(value) => return Ok(value),
                        Err(ParseError::Build(e)) => return Err(e),
                        Err(ParseError::Syntax(_)) => {}
                    }
                }
            }
            // A value the model quoted (`"42"` for a number), or an object or array a chat
            // template serialized twice (vLLM's qwen3 tests): the string's text, typed again.
            if let Some(inner) = value.as_str() {
                let inner = inner.to_owned();
                let again = typed_value(builder, &inner, types, options)?;
                if again.kind() != JsonKind::String {
                    return Ok(again);
                }
            }
        }
        Err(ParseError::Build(e)) => return Err(e),
        Err(ParseError::Syntax(_)) => {}
    }
    if let Some(value) = python_word(builder, trimmed, types) {
        return value;
    }
    if types.0 & Types::BOOLEAN != 0 {
        match trimmed {
            t if t.eq_ignore_ascii_case("true") => return builder.boolean(true),
            t if t.eq_ignore_ascii_case("false") => return builder.boolean(false),
            _ => {}
        }
    }
    if types.0 & (Types::OBJECT | Types::ARRAY) != 0 {
        match parse_literal(builder, trimmed) {
            Ok(value) if types.allows(value.kind(), false) => return Ok(value),
            Err(LitErr::Build(e)) => return Err(e),
            _ => {}
        }
        if let Some(value) = escaped_json(builder, trimmed, types, options)? {
            return Ok(value);
        }
    }
    string(builder)
}

/// The digits of the integer a JSON number's text is exactly (`42.0`, `4.2e1`, `-0.0`), or
/// `None` when a fraction is left (`42.5`, `1e-400`) or the integer would be over 400 digits.
fn integral_digits(text: &str) -> Option<String> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let scale = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let mut integer = if scale >= 0 {
        if digits.len() as i64 + scale > 400 {
            return None;
        }
        format!("{digits}{}", "0".repeat(usize::try_from(scale).ok()?))
    } else {
        let cut = digits.len() as i64 + scale;
        let cut = usize::try_from(cut.max(0)).ok()?;
        if !digits[cut..].bytes().all(|b| b == b'0') {
            return None;
        }
        digits[..cut].to_owned()
    };
    integer = integer.trim_start_matches('0').to_owned();
    if integer.is_empty() {
        return Some("0".to_owned());
    }
    Some(if negative {
        format!("-{integer}")
    } else {
        integer
    })
}

/// Whether `value` holds no infinite number (a literal that overflows a float, which JSON cannot
/// carry).
fn finite<V: JsonView>(value: &V) -> bool {
    match value.kind() {
        JsonKind::Number => !value
            .number_text()
            .is_some_and(|text| text.ends_with("Infinity") || text == "NaN"),
        JsonKind::Array => value.items().iter().all(finite),
        JsonKind::Object => value.entries().iter().all(|(_, v)| finite(v)),
        _ => true,
    }
}

/// An object or array the model wrote escaped, as the inside of a JSON string
/// (`[{\"id\": 1}]`): the JSON its unescaped text is, when of `types`.
fn escaped_json<B>(
    builder: &mut B,
    trimmed: &str,
    types: Types,
    options: ParseOptions,
) -> Result<Option<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if !trimmed.contains(r#"\""#) {
        return Ok(None);
    }
    let unescaped = match parse(&format!("\"{trimmed}\""), builder, options) {
        Ok(value) => value,
        Err(ParseError::Build(e)) => return Err(e),
        Err(ParseError::Syntax(_)) => return Ok(None),
    };
    let Some(text) = unescaped.as_str() else {
        return Ok(None);
    };
    match parse(text.trim(), builder, options) {
        Ok(value) if types.allows(value.kind(), false) => Ok(Some(value)),
        Err(ParseError::Build(e)) => Err(e),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Value, ValueBuilder};

    fn typed(raw: &str, schema: &str) -> Value {
        let schema: Value = parse(schema, &mut ValueBuilder, ParseOptions::default()).unwrap();
        let types = Types::of_schema(&schema, 0);
        typed_value(&mut ValueBuilder, raw, types, ParseOptions::default()).unwrap()
    }

    #[test]
    fn typing() {
        assert_eq!(typed("03106", r#"{"type":"string"}"#), Value::str("03106"));
        // Without `type`, the values `const` or `enum` allow give the types.
        assert_eq!(typed("null", r#"{"const":"null"}"#), Value::str("null"));
        assert_eq!(
            typed("null", r#"{"enum":["null","x"]}"#),
            Value::str("null")
        );
        assert_eq!(typed("7", r#"{"const":7}"#), Value::Int(7));
        assert_eq!(typed("null", r#"{"enum":["ok",null]}"#), Value::Null);
        assert_eq!(typed("10", r#"{"type":"string"}"#), Value::str("10"));
        assert_eq!(typed("10", r#"{"type":"integer"}"#), Value::Int(10));
        // A container serialized twice is read as the container; another string stays one.
        let twice = typed(r#""{'a': 1}""#, r#"{"type":"object"}"#);
        assert_eq!(twice, typed("{\"a\": 1}", r#"{"type":"object"}"#));
        assert_eq!(
            typed(r#""[1]""#, r#"{"type":"array"}"#),
            typed("[1]", r#"{"type":"array"}"#)
        );
        assert_eq!(
            typed(r#""x""#, r#"{"type":"object"}"#),
            Value::str(r#""x""#)
        );
        assert_eq!(typed("1.5", r#"{"type":"integer"}"#), Value::str("1.5"));
        // An integer written with a fraction or an exponent is that integer, exactly.
        assert_eq!(typed("42.0", r#"{"type":"integer"}"#), Value::Int(42));
        assert_eq!(typed("4.2e1", r#"{"type":"integer"}"#), Value::Int(42));
        assert_eq!(typed("-0.0", r#"{"type":"integer"}"#), Value::Int(0));
        assert_eq!(
            typed("9007199254740993.0", r#"{"type":"integer"}"#),
            Value::Int(9_007_199_254_740_993)
        );
        for kept in ["42.0000000000000001", "1e-400", "1e999"] {
            assert_eq!(typed(kept, r#"{"type":"integer"}"#), Value::str(kept));
        }
        assert_eq!(typed("42.0", r#"{"type":"number"}"#), Value::Float(42.0));
        // `allOf` allows what all its branches allow; `nullable` adds `null`, but not to a
        // schema that lists its values.
        let all_of = r#"{"allOf":[{"const":"42"},{"minLength":0}]}"#;
        assert_eq!(typed("42", all_of), Value::str("42"));
        let both = r#"{"allOf":[{"type":"integer"},{"anyOf":[{"const":"a"},{"type":"integer"}]}]}"#;
        assert_eq!(typed("42", both), Value::Int(42));
        assert_eq!(
            typed("null", r#"{"type":"string","nullable":true}"#),
            Value::Null
        );
        assert_eq!(
            typed(
                "null",
                r#"{"type":"string","const":"null","nullable":true}"#
            ),
            Value::str("null")
        );
        assert_eq!(typed("null", r#"{"type":"string"}"#), Value::str("null"));
        assert_eq!(typed("1.5", r#"{"type":"number"}"#), Value::Float(1.5));
        assert_eq!(typed("7", r#"{"type":"number"}"#), Value::Int(7));
        assert_eq!(typed("True", r#"{"type":"boolean"}"#), Value::Bool(true));
        assert_eq!(typed("abc", r#"{"type":"integer"}"#), Value::str("abc"));
        assert_eq!(
            typed(r#"[{\"id\": \"1\"}]"#, r#"{"type":"array"}"#),
            Value::array(vec![Value::object([("id", Value::str("1"))])])
        );
        assert_eq!(
            typed(r#"[{\"id\": \"1\"}]"#, r#"{"type":"string"}"#),
            Value::str(r#"[{\"id\": \"1\"}]"#)
        );
        assert_eq!(typed("\"42\"", r#"{"type":"number"}"#), Value::Int(42));
        assert_eq!(
            typed(" \"true\" ", r#"{"type":"boolean"}"#),
            Value::Bool(true)
        );
        assert_eq!(
            typed("\"1.5\"", r#"{"type":"integer"}"#),
            Value::str("\"1.5\"")
        );
        assert_eq!(
            typed("\"42\"", r#"{"type":"string"}"#),
            Value::str("\"42\"")
        );
        assert_eq!(
            typed("{'a': 1}", r#"{"type":"object"}"#),
            Value::object([("a", Value::Int(1))])
        );
        assert_eq!(
            typed("[1, 2]", r#"{"type":"array"}"#),
            Value::array(vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(
            typed("[1, 2]", r#"{"type":"object"}"#),
            Value::str("[1, 2]")
        );
        assert_eq!(
            typed("5", r#"{"type":["integer","string"]}"#),
            Value::Int(5)
        );
        assert_eq!(
            typed("x5", r#"{"type":["integer","string"]}"#),
            Value::str("x5")
        );
        assert_eq!(
            typed("5", r#"{"anyOf":[{"type":"integer"},{"type":"null"}]}"#),
            Value::Int(5)
        );
        // No type: JSON when valid, else the text.
        assert_eq!(typed("5", "{}"), Value::Int(5));
        assert_eq!(typed("null", "{}"), Value::Null);
        assert_eq!(typed("hello world", "{}"), Value::str("hello world"));
        // Python's words, untyped or of a type that allows them.
        assert_eq!(typed("True", "{}"), Value::Bool(true));
        assert_eq!(typed(" False\n", "{}"), Value::Bool(false));
        assert_eq!(typed("None", "{}"), Value::Null);
        assert_eq!(typed("None", r#"{"type":["integer","null"]}"#), Value::Null);
        assert_eq!(typed("None", r#"{"type":"integer"}"#), Value::str("None"));
        assert_eq!(typed("True", r#"{"type":"string"}"#), Value::str("True"));
    }

    #[test]
    fn whitespace_around_values() {
        // Not a string: the whitespace around the value is layout.
        assert_eq!(typed("\n    42\n  ", "{}"), Value::Int(42));
        assert_eq!(
            typed("\n  -3.5 ", r#"{"type":"number"}"#),
            Value::Float(-3.5)
        );
        assert_eq!(
            typed("\n true\n", r#"{"type":"boolean"}"#),
            Value::Bool(true)
        );
        assert_eq!(
            typed("\n  {'a': 1}\n", r#"{"type":"object"}"#),
            Value::object([("a", Value::Int(1))])
        );
        // A string: the template's newline on each side (and the closing tag's indentation)
        // go; the value's own whitespace stays.
        let s = r#"{"type":"string"}"#;
        assert_eq!(typed("\nParis\n", s), Value::str("Paris"));
        assert_eq!(typed("\r\nParis\r\n", s), Value::str("Paris"));
        assert_eq!(typed("\n    return x\n", s), Value::str("    return x"));
        assert_eq!(
            typed("\ndef f():\n    pass\n", s),
            Value::str("def f():\n    pass")
        );
        assert_eq!(typed(" a b ", s), Value::str(" a b "));
        assert_eq!(typed("\n\nx\n\n", s), Value::str("\nx\n"));
        assert_eq!(typed("42 ", s), Value::str("42 "));
        // Pretty-printed XML (the closing tag indented on its own line): the value is
        // dedented, its relative indentation kept.
        assert_eq!(typed("\n      John Doe\n    ", s), Value::str("John Doe"));
        assert_eq!(
            typed("\ndef f():\n    pass\n    ", s),
            Value::str("def f():\n    pass")
        );
        assert_eq!(
            typed("\n      if x:\n\n          y()\n    ", s),
            Value::str("if x:\n\n    y()")
        );
        assert_eq!(typed("\n      \n    ", s), Value::str(""));
        assert_eq!(typed("\n    ", s), Value::str(""));
        // Untyped text that is no JSON value is a string by the same rules.
        assert_eq!(typed("\nhello \n", "{}"), Value::str("hello "));
    }

    #[test]
    fn numbers_beyond_any_float_stay_text() {
        // JSON cannot carry infinity: the value is the text the model wrote, whatever the type.
        for schema in [r#"{"type":"number"}"#, r#"{"type":"integer"}"#, "{}"] {
            assert_eq!(typed("1e309", schema), Value::str("1e309"));
            assert_eq!(typed("-1e309", schema), Value::str("-1e309"));
        }
        let nested = r#"{"a": 1e309}"#;
        assert_eq!(typed(nested, r#"{"type":"object"}"#), Value::str(nested));
        assert_eq!(typed("1e308", r#"{"type":"number"}"#), Value::Float(1e308));
    }

    #[test]
    fn integers_beyond_64_bits_stay_exact() {
        let big = "123456789012345678901234567890";
        for schema in [r#"{"type":"integer"}"#, "{}"] {
            assert_eq!(
                typed(&format!("\n  {big}\n"), schema),
                Value::BigInt(big.into())
            );
        }
    }

    /// Tool definitions read on demand, as a binding would read the user's list.
    #[derive(Debug)]
    struct OnDemand(Vec<Value>);

    impl ParamTypes for OnDemand {
        fn types(&self, tool: &str, parameter: &str) -> Types {
            tool_definition(self.0.iter().cloned(), tool)
                .and_then(|d| definition_parameters(&d))
                .map_or(Types::default(), |p| property_types(&p, parameter))
        }

        fn has_parameter(&self, tool: &str, parameter: &str) -> Option<bool> {
            tool_definition(self.0.iter().cloned(), tool).map(|d| has_property(&d, parameter))
        }

        fn tool_names(&self) -> Vec<String> {
            tool_names(self.0.iter().cloned())
        }
    }

    #[test]
    fn a_property_named_by_a_local_ref_is_typed_by_its_target() {
        let parameters = r##"{"$defs": {"code": {"type": "string"}, "alias": {"$ref": "#/$defs/code"}},
            "properties": {"a": {"$ref": "#/$defs/code"}, "b": {"$ref": "#/$defs/alias"},
                "c": {"$ref": "#/$defs/missing"}}}"##;
        let parameters = parse(parameters, &mut ValueBuilder, ParseOptions::default()).unwrap();
        assert_eq!(property_types(&parameters, "a"), Types(Types::STRING));
        assert_eq!(property_types(&parameters, "b"), Types(Types::STRING));
        // A reference that names nothing leaves the value untyped.
        assert_eq!(property_types(&parameters, "c"), Types(0));
        // A pointer written in a URI is percent-decoded; `nullable` beside the reference adds
        // `null` to the target's types unless the target lists its values.
        let parameters = r##"{"$defs": {"Café": {"const": "42"}, "text": {"type": "string"},
                "lit": {"allOf": [{"type": "string", "const": "null"}]}},
            "properties": {"p": {"$ref": "#/$defs/Caf%C3%A9"},
                "n": {"$ref": "#/$defs/text", "nullable": true},
                "l": {"$ref": "#/$defs/lit", "nullable": true}}}"##;
        let parameters = parse(parameters, &mut ValueBuilder, ParseOptions::default()).unwrap();
        assert_eq!(property_types(&parameters, "p"), Types(Types::STRING));
        assert_eq!(
            property_types(&parameters, "n"),
            Types(Types::STRING | Types::NULL)
        );
        assert_eq!(property_types(&parameters, "l"), Types(Types::STRING));
    }

    #[test]
    fn on_demand_agrees_with_read_at_once() {
        let tools = r##"[
            {"type": "function", "function": {"name": "f", "parameters": {"properties": {
                "a": {"type": "integer"}, "b": {"type": ["string", "null"]}}}}},
            {"name": "g", "input_schema": {"properties": {"a": {"anyOf": [{"type": "number"}]}}}},
            {"name": "h", "schema": {"properties": {"o": {"type": "object"}}}},
            {"name": "f", "parameters": {"properties": {"a": {"type": "boolean"}}}},
            {"name": 5, "parameters": {"properties": {"a": {"type": "string"}}}},
            {"name": "p", "parameters": {"properties": []}},
            {"function": "not an object", "name": "q", "parameters": {"properties": {"x": {}}}},
            {"name": "r", "parameters": {"$defs": {"A/1": {"properties": {"a": {"type": "integer"}}}},
                "oneOf": [{"$ref": "#/$defs/A~11"}, {"properties": {"a": {"type": "string"}, "b": {}}}]}},
            {"name": "s", "parameters": {"$defs": {"Id": {"$ref": "#/$defs/Text"},
                "Text": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/Id"},
                "b": {"$ref": "#/$defs/Missing"}, "o": {"$ref": "#/$defs/Id", "type": "integer"}}}},
            "not a tool"
        ]"##;
        let Value::Array(items) = parse(tools, &mut ValueBuilder, ParseOptions::default()).unwrap()
        else {
            panic!("an array")
        };
        let at_once = ToolSchemas::from_tools(&items);
        let on_demand = OnDemand(items.to_vec());
        for tool in ["f", "g", "h", "p", "q", "r", "s", "5", "missing"] {
            for parameter in ["a", "b", "o", "x", "missing"] {
                assert_eq!(
                    on_demand.types(tool, parameter),
                    at_once.types(tool, parameter),
                    "{tool}.{parameter}"
                );
            }
        }
        let mut names = on_demand.tool_names();
        let mut read = at_once.tool_names();
        names.sort();
        read.sort();
        assert_eq!(names, read);
        assert_eq!(names, ["f", "g", "h", "p", "q", "r", "s"]);
        // A property that is a local `$ref` (followed through another) is typed by its target;
        // a `type` beside the `$ref` wins, and a dangling one gives no type.
        assert_eq!(at_once.types("s", "a"), Types::TEXT);
        assert_eq!(at_once.types("s", "o"), Types(Types::INTEGER));
        assert_eq!(at_once.types("s", "b"), Types::default());
        // A root `oneOf` (a `$ref` followed): a parameter is the union of its branches'.
        assert_eq!(
            at_once.types("r", "a"),
            Types(Types::INTEGER | Types::STRING)
        );
        assert_eq!(at_once.types("r", "b"), Types::default());
        assert_eq!(at_once.has_parameter("r", "b"), Some(true));
        for tool in ["f", "g", "h", "p", "q", "r", "missing"] {
            for parameter in ["a", "b", "o", "x", "missing"] {
                assert_eq!(
                    on_demand.has_parameter(tool, parameter),
                    at_once.has_parameter(tool, parameter),
                    "{tool}.{parameter}"
                );
            }
        }
        assert_eq!(on_demand.has_parameter("f", "b"), Some(false));
        assert_eq!(on_demand.has_parameter("q", "x"), Some(true));
        assert_eq!(on_demand.has_parameter("missing", "a"), None);
        // The later "f" wins; a wrapped definition is read through `function`.
        assert_eq!(on_demand.types("f", "a").0, Types::BOOLEAN);
        assert_eq!(on_demand.types("f", "b").0, 0);
        assert_eq!(on_demand.types("g", "a").0, Types::NUMBER);
        assert_eq!(on_demand.types("h", "o").0, Types::OBJECT);
    }
}
