/// A seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014), so that a
/// randomized test repeats exactly and a failure can be replayed from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state: 64 bits, advanced by a fixed odd constant on each draw.
    public var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
