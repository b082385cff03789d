//! [`Mask`]: a set of marker-table entries, one bit each. Four words hold twice the entries
//! the registry has, so a new format never has to make room; the hot tests (`&` of three byte
//! tables and a mask, then "is any bit set") stay a few word operations.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

const WORDS: usize = 4;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Mask([u64; WORDS]);

impl Mask {
    /// The most entries a mask holds.
    pub const BITS: usize = 64 * WORDS;
    pub const NONE: Self = Self([0; WORDS]);
    #[cfg(test)]
    pub const ALL: Self = Self([u64::MAX; WORDS]);

    /// This mask and entry `i`.
    pub const fn with(mut self, i: usize) -> Self {
        self.0[i / 64] |= 1 << (i % 64);
        self
    }

    /// The entries of this mask or `other` (`|` in a `const fn`).
    pub const fn union(mut self, other: Self) -> Self {
        let mut w = 0;
        while w < WORDS {
            self.0[w] |= other.0[w];
            w += 1;
        }
        self
    }

    pub const fn has(self, i: usize) -> bool {
        self.0[i / 64] & 1 << (i % 64) != 0
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0.iter().fold(0, |any, w| any | w) == 0
    }

    /// The entries, lowest first.
    #[inline]
    pub fn entries(self) -> Entries {
        Entries {
            mask: self,
            word: 0,
        }
    }
}

/// The entries of a [`Mask`], lowest first.
pub(crate) struct Entries {
    mask: Mask,
    word: usize,
}

impl Iterator for Entries {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < WORDS {
            let bits = &mut self.mask.0[self.word];
            if *bits != 0 {
                let i = bits.trailing_zeros() as usize;
                *bits &= *bits - 1;
                return Some(64 * self.word + i);
            }
            self.word += 1;
        }
        None
    }
}

macro_rules! word_op {
    ($op:ident, $method:ident, $assign:ident, $assign_method:ident, $sym:tt) => {
        impl $op for Mask {
            type Output = Self;

            #[inline(always)]
            fn $method(mut self, other: Self) -> Self {
                self.$assign_method(other);
                self
            }
        }

        impl $assign for Mask {
            #[inline(always)]
            fn $assign_method(&mut self, other: Self) {
                for (a, b) in self.0.iter_mut().zip(other.0) {
                    *a = *a $sym b;
                }
            }
        }
    };
}

word_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
word_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);

impl Not for Mask {
    type Output = Self;

    #[inline(always)]
    fn not(self) -> Self {
        Self(self.0.map(|w| !w))
    }
}

#[cfg(test)]
mod tests {
    use super::Mask;

    #[test]
    fn entries_cross_words() {
        let bit = |i| Mask::NONE.with(i);
        let mask = bit(3).with(64).with(130).with(255);
        assert_eq!(mask.entries().collect::<Vec<_>>(), [3, 64, 130, 255]);
        assert!(mask.has(130) && !mask.has(129));
        assert_eq!((mask & !bit(64)).entries().count(), 3);
        assert!((mask & bit(5)).is_empty());
        assert_eq!(bit(1).union(bit(200)), bit(1) | bit(200));
        assert_eq!(Mask::ALL.entries().count(), Mask::BITS);
    }
}
