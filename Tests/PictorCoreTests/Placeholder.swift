import Testing

@Test func placeholder_PictorCoreTests() {}
