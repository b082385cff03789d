//! Substring finders for the fixed markers, built once: building a SIMD finder costs more than
//! searching a typical model reply.

use std::sync::LazyLock;

use memchr::memmem::Finder;

macro_rules! finder {
    ($name:ident, $needle:expr) => {
        pub static $name: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new($needle));
    };
}

finder!(TOOL_CALL_FENCE, super::fence::OPEN_MARKER);
finder!(TILDES, "~~~");
finder!(BACKTICKS, "```");
finder!(THINK_OPEN, super::think::OPEN);
finder!(THINK_CLOSE, super::think::CLOSE);
