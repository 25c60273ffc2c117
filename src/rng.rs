//! SplitMix64 (Steele, Lea and Flood; the generator Java's `SplittableRandom` and the seeding of
//! xoshiro use): the one mixer of bits and the one seedable generator of the crate. Its values
//! are part of what the crate promises: the book shard that holds a position
//! ([`crate::book::shard::shard_of`]) and a strength level's move ([`crate::levels`]) are drawn
//! from them, so they must not change.

/// The generator's step: the golden ratio's fractional part, odd, so that the states run
/// through every u64.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finalizer: a bijection of u64 whose every output bit depends on every input
/// bit, so that nearby inputs (keys, seeds, counters) give unrelated outputs.
pub fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A small, fast, seedable generator: the same seed gives the same values on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        splitmix64(self.0)
    }

    /// Uniform in [0, 1): the top 53 bits, as many as an f64 holds exactly.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published reference values of SplitMix64 seeded with 0 and 1234567: the values the
    /// books' shards and the levels' moves were drawn from.
    #[test]
    fn the_generator_gives_the_reference_sequence() {
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut r = Rng::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn the_mixer_is_the_generators_output_for_the_stepped_state() {
        assert_eq!(splitmix64(GAMMA), Rng::new(0).next_u64());
        assert_eq!(splitmix64(0), 0);
    }

    #[test]
    fn unit_draws_lie_in_the_half_open_unit_interval() {
        let mut r = Rng::new(42);
        assert!((0..1000).map(|_| r.unit()).all(|u| (0.0..1.0).contains(&u)));
    }
}
