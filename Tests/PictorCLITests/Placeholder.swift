import Testing

@Test func placeholder_PictorCLITests() {}
