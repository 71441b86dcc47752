import Foundation
import Pictor
import Testing
@testable import PictorCLI

/// `PipelineStack` builds its pipeline on first use only: `serve` hands the configuration to
/// the image service, which builds its own, and a second pipeline over the same caches would
/// be threads, queues and a fleet-statistics recorder for nothing.
@Suite struct PipelineStackTests {
    @Test func theConfigurationComesWithoutAPipeline() throws {
        let root = try makeTemporaryDirectory("stack-lazy")
        defer { try? FileManager.default.removeItem(at: root) }
        let stack = try PipelineStack(cache: CacheOptions(directory: root, keyFile: nil, disabled: false), console: RecordingConsole().console)
        defer { stack.close() }
        #expect(stack.configuration.dataCache != nil)
        #expect(!stack.hasBuiltPipeline)
        let pipeline = stack.pipeline
        #expect(stack.hasBuiltPipeline)
        #expect(stack.pipeline === pipeline, "one pipeline, built once")
    }
}
