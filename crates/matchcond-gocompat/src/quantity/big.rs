//! A small arbitrary-precision natural number in base 10^9, enough for the decimal
//! arithmetic of quantities: parsing digit strings, scaling by powers of ten and two,
//! addition, subtraction, comparison and printing.

use std::cmp::Ordering;

/// The limb base.
const BASE: u64 = 1_000_000_000;

/// Powers of ten that fit a limb.
const POW10: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// A natural number; limbs in base 10^9, least significant first, with no zero limb at the
/// top (zero has no limbs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nat {
    limbs: Vec<u32>,
}

fn pow10_small(k: usize) -> u32 {
    POW10.get(k).copied().unwrap_or(1)
}

impl Nat {
    /// Zero.
    pub fn zero() -> Nat {
        Nat { limbs: Vec::new() }
    }

    /// From a machine integer.
    pub fn from_u128(mut v: u128) -> Nat {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % u128::from(BASE)) as u32);
            v /= u128::from(BASE);
        }
        Nat { limbs }
    }

    /// From ASCII decimal digits (the caller guarantees there is nothing else).
    pub fn from_digits(digits: &[u8]) -> Nat {
        let mut limbs = Vec::with_capacity(digits.len() / 9 + 1);
        for chunk in digits.rchunks(9) {
            let mut limb = 0u32;
            for d in chunk {
                limb = limb * 10 + u32::from(d.wrapping_sub(b'0') % 10);
            }
            limbs.push(limb);
        }
        let mut n = Nat { limbs };
        n.trim();
        n
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// The number of decimal digits (0 for zero).
    pub fn digits(&self) -> usize {
        match self.limbs.last() {
            None => 0,
            Some(top) => {
                let mut d = 1;
                let mut t = *top;
                while t >= 10 {
                    t /= 10;
                    d += 1;
                }
                (self.limbs.len() - 1) * 9 + d
            }
        }
    }

    /// The value, if it fits a `u128`.
    #[cfg(test)]
    pub fn to_u128(&self) -> Option<u128> {
        let mut v: u128 = 0;
        for limb in self.limbs.iter().rev() {
            v = v
                .checked_mul(u128::from(BASE))?
                .checked_add(u128::from(*limb))?;
        }
        Some(v)
    }

    /// Multiplies by a small factor.
    pub fn mul_small(&mut self, m: u32) {
        if m == 0 {
            self.limbs.clear();
            return;
        }
        let mut carry = 0u64;
        for limb in self.limbs.iter_mut() {
            let p = u64::from(*limb) * u64::from(m) + carry;
            *limb = (p % BASE) as u32;
            carry = p / BASE;
        }
        while carry > 0 {
            self.limbs.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }

    /// Multiplies by 10^k.
    pub fn mul_pow10(&mut self, k: usize) {
        if self.is_zero() || k == 0 {
            return;
        }
        let whole = k / 9;
        if whole > 0 {
            let mut limbs = vec![0u32; whole];
            limbs.extend_from_slice(&self.limbs);
            self.limbs = limbs;
        }
        self.mul_small(pow10_small(k % 9));
    }

    /// Multiplies by 2^k.
    pub fn mul_pow2(&mut self, mut k: u32) {
        while k > 0 {
            let step = k.min(29);
            self.mul_small(1u32 << step);
            k -= step;
        }
    }

    /// Divides by a small divisor, returning the remainder.
    pub fn div_small(&mut self, d: u32) -> u32 {
        if d == 0 {
            return 0;
        }
        let mut rem = 0u64;
        for limb in self.limbs.iter_mut().rev() {
            let cur = rem * BASE + u64::from(*limb);
            *limb = (cur / u64::from(d)) as u32;
            rem = cur % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    /// The remainder of a division by a small divisor, without changing the number.
    pub fn rem_small(&self, d: u32) -> u32 {
        if d == 0 {
            return 0;
        }
        let mut rem = 0u64;
        for limb in self.limbs.iter().rev() {
            rem = (rem * BASE + u64::from(*limb)) % u64::from(d);
        }
        rem as u32
    }

    /// Divides by 10^k, truncating; returns whether a non-zero remainder was dropped.
    pub fn div_pow10(&mut self, k: usize) -> bool {
        if self.is_zero() {
            return false;
        }
        let whole = k / 9;
        if whole >= self.limbs.len() {
            self.limbs.clear();
            return true;
        }
        let dropped = self.limbs.drain(..whole).any(|l| l != 0);
        let rem = self.div_small(pow10_small(k % 9));
        dropped || rem != 0
    }

    /// Adds one.
    pub fn increment(&mut self) {
        self.add_assign(&Nat::from_u128(1));
    }

    /// Adds another number.
    pub fn add_assign(&mut self, other: &Nat) {
        let mut carry = 0u32;
        for i in 0..self.limbs.len().max(other.limbs.len()) {
            let a = self.limbs.get(i).copied().unwrap_or(0);
            let b = other.limbs.get(i).copied().unwrap_or(0);
            let mut s = a + b + carry;
            carry = 0;
            if u64::from(s) >= BASE {
                s -= BASE as u32;
                carry = 1;
            }
            match self.limbs.get_mut(i) {
                Some(l) => *l = s,
                None => self.limbs.push(s),
            }
        }
        if carry > 0 {
            self.limbs.push(carry);
        }
    }

    /// Subtracts a number that is not larger.
    pub fn sub_assign(&mut self, other: &Nat) {
        let mut borrow = 0i64;
        for (i, limb) in self.limbs.iter_mut().enumerate() {
            let b = i64::from(other.limbs.get(i).copied().unwrap_or(0));
            let mut d = i64::from(*limb) - b - borrow;
            borrow = 0;
            if d < 0 {
                d += BASE as i64;
                borrow = 1;
            }
            *limb = d as u32;
        }
        self.trim();
    }

    /// Decimal digits.
    pub fn to_decimal(&self) -> String {
        let mut out = String::with_capacity(self.limbs.len() * 9 + 1);
        let mut iter = self.limbs.iter().rev();
        match iter.next() {
            None => out.push('0'),
            Some(top) => out.push_str(&top.to_string()),
        }
        for limb in iter {
            out.push_str(&format!("{limb:09}"));
        }
        out
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let mut n = Nat::from_digits(b"000123456789012345678901234567890");
        assert_eq!(n.to_decimal(), "123456789012345678901234567890");
        assert_eq!(n.digits(), 30);
        n.mul_pow10(11);
        assert_eq!(n.to_decimal(), "12345678901234567890123456789000000000000");
        assert!(!n.div_pow10(12));
        assert_eq!(n.to_decimal(), "12345678901234567890123456789");
        assert!(n.div_pow10(1));
        assert_eq!(n.to_decimal(), "1234567890123456789012345678");
        let mut m = Nat::from_u128(999_999_999);
        m.increment();
        assert_eq!(m.to_decimal(), "1000000000");
        m.sub_assign(&Nat::from_u128(1));
        assert_eq!(m.to_decimal(), "999999999");
        let mut p = Nat::from_u128(3);
        p.mul_pow2(60);
        assert_eq!(p.to_u128(), Some(3u128 << 60));
        assert_eq!(p.rem_small(1024), 0);
        assert_eq!(p.div_small(1024), 0);
        assert_eq!(p.to_u128(), Some(3u128 << 50));
        assert!(Nat::from_u128(10) > Nat::from_u128(9));
        assert!(Nat::from_u128(1 << 70) > Nat::from_u128(1 << 69));
        let mut z = Nat::from_digits(b"0000");
        assert!(z.is_zero());
        assert_eq!(z.to_decimal(), "0");
        assert!(!z.div_pow10(5));
        let mut small = Nat::from_u128(5);
        assert!(small.div_pow10(100));
        assert!(small.is_zero());
    }
}
