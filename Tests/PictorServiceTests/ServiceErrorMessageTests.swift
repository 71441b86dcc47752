import Foundation
import PictorService
import Testing

/// The service's errors log their own message: `localizedDescription` is the `description`,
/// not Foundation's "The operation could not be completed. (… error 0.)".
struct ServiceErrorMessageTests {
    @Test func serviceErrorsLogTheirMessage() {
        let error: any Error = ServiceError(.unknownOption, reason: "unknown option 'zz'")
        #expect(error.localizedDescription == String(describing: error))
        #expect(error.localizedDescription.contains("unknown option 'zz'"))
    }

    @Test func configurationErrorsLogTheirMessage() {
        let error: any Error = ServiceConfigurationError(location: "presets line 3", message: "expected name=option/option")
        #expect(error.localizedDescription == "presets line 3: expected name=option/option")
    }
}
