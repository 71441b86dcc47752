import Testing

@Test func placeholder_PictorIntegrationTests() {}
