import EarshotCore
import Foundation

extension ServerConfiguration {
    /// Every setting as a Markdown table (flag, environment variable, config-file key, meaning), `--config` first,
    /// then the settings table in its order. README.md's configuration table is this text: `earshot settings` prints
    /// it, `scripts/check-docs --write` copies it into the README, and `EarshotCLITests` fails when they differ.
    public static var settingsMarkdown: String {
        func row(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        /// Help text with placeholders (`<data-dir>/blobs`, `http://<host>:<port>`) as code, so Markdown shows them.
        func markdown(_ help: String) -> String {
            help.replacingOccurrences(of: #"[^\s(]*<[a-z-]+>[^\s)]*"#, with: "`$0`", options: .regularExpression)
        }
        var rows = ["| flag | variable | file key | meaning |", "|---|---|---|---|"]
        if let config = commandLineOptions.first(where: { $0.name == "config" }) {
            rows.append(row(["`--config \(config.valueName)`", "`EARSHOT_CONFIG`", "—", config.help]))
        }
        for setting in settings {
            rows.append(
                row([
                    "`--\(setting.name) \(setting.valueName)`", "`\(setting.environmentVariable)`",
                    "`\"\(setting.name)\"`", markdown(setting.help),
                ]))
        }
        return rows.joined(separator: "\n") + "\n"
    }
}
