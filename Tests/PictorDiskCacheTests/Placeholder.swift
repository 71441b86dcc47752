import Testing

@Test func placeholder_PictorDiskCacheTests() {}
