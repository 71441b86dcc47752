import Testing

@Test func placeholder_PictorCryptoTests() {}
