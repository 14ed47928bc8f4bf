import RoquaFuzzing

FuzzDriver.main(program: "roqua-fuzz", targets: FuzzTargets.all)
