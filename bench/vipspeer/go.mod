module github.com/printworker/printworker/bench/vipspeer

go 1.26
