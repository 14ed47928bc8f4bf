import RoquaFuzzing

FuzzDriver.main(program: "roqua-chat-fuzz", targets: ChatFuzzTargets.all)
