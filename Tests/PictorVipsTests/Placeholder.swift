import Testing

@Test func placeholder_PictorVipsTests() {}
