import Foundation
import PictorCLI

let code = await PictorCommand.run(Array(CommandLine.arguments.dropFirst()))
exit(code)
