import EarshotCore
import Testing

/// The one rule for where models live: explicit directory, then EARSHOT_HOME, then ~/.cache/earshot.
@Suite struct ModelHomeTests {
    @Test func anExplicitHomeWinsThenEarshotHomeThenTheUsersCache() {
        let environment = ["EARSHOT_HOME": "/srv/earshot", "HOME": "/home/u"]
        #expect(ModelHome.resolve("/data/models/", environment: environment).path == "/data/models")
        #expect(ModelHome.resolve(nil, environment: environment).path == "/srv/earshot")
        #expect(ModelHome.resolve("", environment: environment).path == "/srv/earshot")
        #expect(
            ModelHome.resolve(nil, environment: ["EARSHOT_HOME": "", "HOME": "/home/u"]).path
                == "/home/u/.cache/earshot")
        #expect(ModelHome.resolve(nil, environment: ["HOME": "/home/u"]).path == "/home/u/.cache/earshot")
    }

    @Test func filesAreNamedUnderTheHome() {
        let home = ModelHome("/srv/earshot")
        #expect(home.models == "/srv/earshot/models")
        #expect(home.model("ggml-base-q8_0.bin") == "/srv/earshot/models/ggml-base-q8_0.bin")
        #expect(home.file("llama/bin/llama-server") == "/srv/earshot/llama/bin/llama-server")
    }
}
