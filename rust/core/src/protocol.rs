//! Where a call came from: the protocols and the open-weight formats, as plain data. A leaf
//! module: the `Format` and `Group` enums are generated from [`crate::registry`] and depend on
//! nothing else, so every other module may name them.

use crate::registry::for_each_group;

/// Where a call came from; its name is the `protocol` of an `InvalidToolCall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    Native,
    TextTagged,
    RawJson,
    /// llama.cpp's generic format: raw JSON (`{"tool_call": …}`, `{"tool_calls": […]}`, read by
    /// raw JSON's code, whose calls are `RawJson`'s), where a message that is
    /// `{"response": "…"}` is that string as content.
    LlamacppGeneric,
    /// An open-weight text format.
    Format(Format),
}

impl Protocol {
    /// The protocols `formats=` names beside the open-weight formats.
    pub const TEXT: [Protocol; 3] = [
        Protocol::TextTagged,
        Protocol::RawJson,
        Protocol::LlamacppGeneric,
    ];

    /// The protocol of [`Protocol::TEXT`] a name or alias ([`Protocol::text_aliases`])
    /// designates (matched as [`Format::parse`] does).
    pub fn parse_text(name: &str) -> Option<Self> {
        let canonical = crate::registry::TEXT_ALIASES
            .iter()
            .find(|(alias, _)| same_name(alias, name))
            .map_or(name, |(_, canonical)| canonical);
        Protocol::TEXT
            .into_iter()
            .find(|p| same_name(p.as_str(), canonical))
    }

    /// The peers' names for protocols of [`Protocol::TEXT`], with the protocol's name
    /// (`generic`, llama.cpp's, is `llamacpp_generic`).
    pub fn text_aliases() -> &'static [(&'static str, &'static str)] {
        crate::registry::TEXT_ALIASES
    }

    /// The names an alias of several formats stands for ([`crate::registry::SET_ALIASES`],
    /// matched as [`Format::parse`] does), canonical names of [`Protocol::TEXT`] and formats.
    pub fn alias_set(name: &str) -> Option<&'static [&'static str]> {
        crate::registry::SET_ALIASES
            .iter()
            .find(|(alias, _)| same_name(alias, name))
            .map(|(_, names)| *names)
    }

    /// Every alias of several formats, with the names it stands for.
    pub fn alias_sets() -> &'static [(&'static str, &'static [&'static str])] {
        crate::registry::SET_ALIASES
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Native => "native",
            Protocol::TextTagged => "text_tagged",
            Protocol::RawJson => "raw_json",
            Protocol::LlamacppGeneric => "llamacpp_generic",
            Protocol::Format(format) => format.as_str(),
        }
    }
}

macro_rules! define_formats {
    ($(
        $module:ident $group:ident [
            $($format:ident $name:literal [$($alias:literal),* $(,)?]),+ $(,)?
        ]
    )*) => {
        /// An open-weight text format: how one family of models writes its calls.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Format {
            $($($format,)+)*
        }

        impl Format {
            /// Every format, in registry order.
            pub const ALL: &'static [Format] = &[$($(Format::$format,)+)*];

            /// The format's toolwire name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($(Format::$format => $name,)+)*
                }
            }

            /// The names other projects give the format (accepted by [`Format::parse`]).
            pub const fn aliases(self) -> &'static [&'static str] {
                match self {
                    $($(Format::$format => &[$($alias),*],)+)*
                }
            }

            /// The group whose parser reads the format.
            pub const fn group(self) -> Group {
                match self {
                    $($(Format::$format => Group::$group,)+)*
                }
            }
        }

        /// Formats that share their markers, read by one parser and one stream machine.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Group {
            $($group,)*
        }

        impl Group {
            pub const ALL: &'static [Group] = &[$(Group::$group,)*];
        }
    };
}

for_each_group!(define_formats);

const _: () = assert!(Format::ALL.len() <= 64, "a FormatSet is a u64");

impl Format {
    /// The format a name or alias designates: exact, or with `-` for `_` and any case
    /// (`"GPT-OSS"` is `gpt_oss`, an alias of harmony).
    pub fn parse(name: &str) -> Option<Self> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| same_name(f.as_str(), name) || f.aliases().iter().any(|a| same_name(a, name)))
    }
}

/// Whether two names are the same, ignoring ASCII case and `-` for `_`.
fn same_name(a: &str, b: &str) -> bool {
    let fold = |c: u8| {
        if c == b'-' {
            b'_'
        } else {
            c.to_ascii_lowercase()
        }
    };
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| fold(x) == fold(y))
}

impl Group {
    /// The formats this group reads.
    pub const fn formats(self) -> FormatSet {
        let mut set = FormatSet::NONE;
        let mut i = 0;
        while i < Format::ALL.len() {
            if Format::ALL[i].group() as u8 == self as u8 {
                set = set.with(Format::ALL[i]);
            }
            i += 1;
        }
        set
    }
}

/// A set of formats (`formats="auto"` is [`FormatSet::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormatSet(u64);

impl FormatSet {
    pub const ALL: FormatSet = FormatSet(u64::MAX >> (64 - Format::ALL.len()));
    pub const NONE: FormatSet = FormatSet(0);

    pub const fn only(format: Format) -> Self {
        FormatSet(1 << format as u64)
    }

    /// The set of `formats`.
    pub const fn of(formats: &[Format]) -> Self {
        let mut set = FormatSet::NONE;
        let mut i = 0;
        while i < formats.len() {
            set = set.with(formats[i]);
            i += 1;
        }
        set
    }

    pub const fn with(self, format: Format) -> Self {
        FormatSet(self.0 | 1 << format as u64)
    }

    pub const fn union(self, other: FormatSet) -> Self {
        FormatSet(self.0 | other.0)
    }

    pub const fn contains(self, format: Format) -> bool {
        self.0 & (1 << format as u64) != 0
    }

    pub const fn intersects(self, other: FormatSet) -> bool {
        self.0 & other.0 != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether any format of `group` is in the set.
    pub const fn has_group(self, group: Group) -> bool {
        self.intersects(group.formats())
    }

    /// The indices in [`Format::ALL`] of the formats of the set, in registry order.
    pub(crate) fn indices(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let index = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(index)
        })
    }

    /// The formats of the set, in registry order.
    pub fn iter(self) -> impl Iterator<Item = Format> {
        Format::ALL
            .iter()
            .copied()
            .filter(move |&f| self.contains(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &format in Format::ALL {
            assert_eq!(Format::parse(format.as_str()), Some(format));
            for name in std::iter::once(format.as_str()).chain(format.aliases().iter().copied()) {
                let key = name.to_ascii_lowercase().replace('-', "_");
                assert!(seen.insert(key), "{name} names two formats");
                assert_eq!(Format::parse(name), Some(format), "{name}");
            }
        }
        assert_eq!(Format::parse("GPT-OSS"), Some(Format::Harmony));
        assert_eq!(Format::parse("nope"), None);
        // Protocol names are not format names.
        for protocol in Protocol::TEXT {
            let name = protocol.as_str();
            assert!(seen.insert(name.to_owned()), "{name} names two formats");
            assert_eq!(Protocol::parse_text(name), Some(protocol));
            assert_eq!(Format::parse(name), None, "{name}");
        }
        assert_eq!(
            Protocol::parse_text("LlamaCpp-Generic"),
            Some(Protocol::LlamacppGeneric)
        );
        for (alias, name) in Protocol::text_aliases() {
            assert!(seen.insert(alias.to_string()), "{alias} names two formats");
            assert_eq!(
                Protocol::parse_text(alias).map(Protocol::as_str),
                Some(*name)
            );
        }
        // An alias of a set of names is no other name.
        for (alias, names) in Protocol::alias_sets() {
            assert!(seen.insert(alias.to_string()), "{alias} names two formats");
            assert_eq!(Protocol::alias_set(&alias.to_uppercase()), Some(*names));
        }
        for other in ["native", "auto", "hermes"] {
            assert_eq!(Protocol::parse_text(other), None, "{other}");
        }
    }

    #[test]
    fn sets_hold_their_formats() {
        assert_eq!(FormatSet::ALL.iter().count(), Format::ALL.len());
        for &format in Format::ALL {
            assert!(FormatSet::only(format).contains(format));
            assert!(format.group().formats().contains(format));
            assert!(FormatSet::ALL.has_group(format.group()));
        }
        let pair = FormatSet::of(&[Format::Hermes, Format::Mistral]);
        assert_eq!(
            pair.iter().collect::<Vec<_>>(),
            [Format::Hermes, Format::Mistral]
        );
        assert!(!pair.contains(Format::Harmony));
    }
}
