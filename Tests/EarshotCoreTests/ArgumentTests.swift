import EarshotCore
import Testing

@Suite struct ArgumentTests {
    let spec = CommandSpec(
        name: "earshot transcribe", abstract: "Transcribe a file.",
        options: [
            .init("model", valueName: "NAME", help: "Model tier or path."),
            .init("language", help: "Language."),
            .init("hotword", help: "Hotword.", repeatable: true),
        ],
        flags: [.init("diarize", help: "Label speakers.")],
        positionals: [.init("file", help: "Audio file."), .init("out", help: "Output.", optional: true)])

    @Test func parsesOptionsFlagsAndPositionalsInAnyOrder() throws {
        let parsed = try spec.parse([
            "--model", "asr-pro", "a.wav", "--diarize", "--language=zh", "--hotword", "x",
            "--hotword=y",
        ])
        #expect(parsed.value("model") == "asr-pro")
        #expect(parsed.value("language") == "zh")
        #expect(parsed.values("hotword") == ["x", "y"])
        #expect(parsed.flag("diarize"))
        #expect(!parsed.flag("other"))
        #expect(parsed.positionals == ["a.wav"])
        #expect(parsed.optionValues == ["model": "asr-pro", "language": "zh", "hotword": "y"])
    }

    @Test func aVariadicLastPositionalTakesEveryRemainingValue() throws {
        let files = CommandSpec(
            name: "earshot transcribe", abstract: "x", positionals: [.init("FILE", help: "files", variadic: true)])
        #expect(try files.parse(["a.wav", "b.mp3", "c.m4a"]).positionals == ["a.wav", "b.mp3", "c.m4a"])
        #expect(throws: ArgumentError(command: "earshot transcribe", "missing argument FILE")) { try files.parse([]) }
        #expect(files.usage.contains("USAGE: earshot transcribe <FILE>..."))
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try spec.parse(["--", "--weird-name.wav"])
        #expect(parsed.positionals == ["--weird-name.wav"])
    }

    @Test func helpWinsAnywhere() throws {
        #expect(try spec.parse(["a.wav", "-h"]).isHelp)
        #expect(try spec.parse(["--bogus", "--help"]).isHelp)
        #expect(try spec.parse(["--", "--help"]).isHelp == false)
        #expect(spec.usage.contains("USAGE: earshot transcribe [options] <file> [out]"))
        #expect(spec.usage.contains("--model <NAME>"))
        #expect(spec.usage.contains("(repeatable)"))
    }

    @Test(arguments: [
        (["--modle", "x", "a.wav"], "unknown option '--modle'; did you mean '--model'?"),
        (["a.wav", "--model"], "option --model needs a value (NAME)"),
        (["--model", "a", "--model", "b", "a.wav"], "option --model given more than once"),
        (["--diarize=yes", "a.wav"], "flag --diarize takes no value"),
        ([], "missing argument file"),
        (["a", "b", "c"], "unexpected argument 'c'"),
        (["-m", "a"], "unknown option '-m'; options are spelled with two dashes"),
    ])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String) {
        #expect(throws: ArgumentError(command: "earshot transcribe", message)) { try spec.parse(arguments) }
    }
}
