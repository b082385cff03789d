//! Byte searches over the few bytes a small chunk adds: a plain loop below 16 bytes, `memchr`
//! above (on a handful of bytes its SIMD set-up costs several times the search itself).

const SHORT: usize = 16;

pub(super) fn find1(a: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        haystack.iter().position(|&x| x == a)
    } else {
        memchr::memchr(a, haystack)
    }
}

pub(super) fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        haystack.iter().position(|&x| x == a || x == b)
    } else {
        memchr::memchr2(a, b, haystack)
    }
}

pub(super) fn find3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        haystack.iter().position(|&x| x == a || x == b || x == c)
    } else {
        memchr::memchr3(a, b, c, haystack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_haystacks_agree_with_memchr() {
        for len in [0, 1, 5, 15, 16, 17, 40] {
            for at in 0..=len {
                let mut haystack = vec![b'x'; len];
                if at < len {
                    haystack[at] = b'c';
                }
                let expected = (at < len).then_some(at);
                assert_eq!(find1(b'c', &haystack), expected);
                assert_eq!(find2(b'a', b'c', &haystack), expected);
                assert_eq!(find3(b'a', b'b', b'c', &haystack), expected);
            }
        }
    }
}
