# Reference values for tests/stats/*_test.cc. Run: Rscript tests/stats/reference.R
# The tests hold the printed numbers as constants; rerun and compare after changing a test's data.
options(digits = 15)
T1 <- c(2.799, 2.046, 1.259, 1.877, 2.244)  # the Speedup-Test paper, example 2.1
T2 <- c(1.046, 0.259, 0.877, 1.244, 1.799)
A <- c(10.2, 11.5, 9.8, 10.9, 12.1, 10.4, 11.0, 9.5)
B <- c(12.4, 13.1, 11.8, 12.9, 14.2, 12.0, 13.5, 12.7, 13.0, 12.2, 11.9, 13.8)
U <- c(1.5, 1.1, 0.9, 1.0, 1.2, 5.8, 1.05, 0.95, 1.3, 1.15, 0.99, 1.02, 7.5, 1.01, 1.08,
       1.12, 0.97, 1.04, 1.09, 1.11)  # long right tail, n = 20
S3 <- c(1, 2, 4)
N40 <- round(qnorm(ppoints(40)) * 3 + 100, 3)  # normal scores, n = 40

p <- function(label, value) cat(sprintf("%-34s %.15g\n", label, value))
pt2 <- function(label, t) {
  p(paste(label, "t"), t$statistic); p(paste(label, "df"), t$parameter)
  p(paste(label, "p"), t$p.value)
  p(paste(label, "lower"), t$conf.int[1]); p(paste(label, "upper"), t$conf.int[2])
}
pt2("welch T1 T2 two.sided 0.95", t.test(T1, T2, conf.level = 0.95))
pt2("welch T1 T2 greater 0.99", t.test(T1, T2, alternative = "greater", conf.level = 0.99))
pt2("welch T1 T2 greater 0.95", t.test(T1, T2, alternative = "greater", conf.level = 0.95))
pt2("welch A B less 0.9", t.test(A, B, alternative = "less", conf.level = 0.9))
pt2("welch A B two.sided 0.99", t.test(A, B, conf.level = 0.99))
pt2("one-sample A mu=10 greater 0.95", t.test(A, mu = 10, alternative = "greater"))
pt2("one-sample A mu=10 two.sided 0.9", t.test(A, mu = 10, conf.level = 0.9))
p("qt(0.975, 4)", qt(0.975, 4))
p("qt(0.99, 7.5)", qt(0.99, 7.5))
p("qt(0.95, 1000)", qt(0.95, 1000))
sw <- function(label, x) { s <- shapiro.test(x); p(paste(label, "W"), s$statistic); p(paste(label, "p"), s$p.value) }
sw("shapiro T1", T1)
sw("shapiro S3", S3)
sw("shapiro A", A)
sw("shapiro B", B)
sw("shapiro U", U)
cat("N40 =", N40, "\n")
sw("shapiro N40", N40)
pp <- function(label, x, n, conf) { r <- prop.test(x, n, conf.level = conf); p(paste(label, "lower"), r$conf.int[1]); p(paste(label, "upper"), r$conf.int[2]) }
pp("prop 17/30 0.90", 17, 30, 0.90)
pp("prop 0/10 0.95", 0, 10, 0.95)
pp("prop 10/10 0.95", 10, 10, 0.95)
pp("prop 15/30 0.95", 15, 30, 0.95)
pp("prop 3/40 0.99", 3, 40, 0.99)
# Yuen's trimmed mean (20 %) with its winsorized standard error and df, and Yuen's test as
# Welch's on those (WRS2::yuen gives the same; written out so base R suffices).
yuen_estimate <- function(x, trim = 0.2) {
  n <- length(x); g <- floor(trim * n); h <- n - 2 * g; s <- sort(x)
  w <- pmin(pmax(s, s[g + 1]), s[n - g])
  c(mean(x, trim = trim), (n - 1) * var(w) / (h * (h - 1)), h - 1)
}
yu <- function(label, x) { e <- yuen_estimate(x); p(paste(label, "value"), e[1]); p(paste(label, "variance"), e[2]); p(paste(label, "df"), e[3]) }
yu("yuen U", U)
yu("yuen B", B)
ea <- yuen_estimate(A); eb <- yuen_estimate(B)
df <- (ea[2] + eb[2])^2 / (ea[2]^2 / ea[3] + eb[2]^2 / eb[3])
p("yuen A B less p", pt((ea[1] - eb[1]) / sqrt(ea[2] + eb[2]), df))
p("yuen A B df", df)
# The paired trimmed speedup: the 20 % trimmed mean of log(P1 / P2) pair by pair, with the
# Yuen estimate's standard error and h - 1 df, as a ratio interval (exp of both ends).
P1 <- c(10.0, 11.2, 10.4, 30.5, 10.1, 10.6, 10.3, 10.9, 10.2, 25.0, 10.7, 10.5)
P2 <- c(9.6, 10.5, 10.0, 9.9, 9.7, 10.1, 22.0, 10.4, 9.8, 10.0, 10.2, 9.9)
ep <- yuen_estimate(log(P1) - log(P2))
for (conf in c(0.95, 0.9875)) {
  half <- qt(0.5 + conf / 2, ep[3]) * sqrt(ep[2])
  p(paste("paired trimmed", conf, "speedup"), exp(ep[1]))
  p(paste("paired trimmed", conf, "lower"), exp(ep[1] - half))
  p(paste("paired trimmed", conf, "upper"), exp(ep[1] + half))
}
lw <- t.test(log(P1), log(P2), conf.level = 0.95)$conf.int
p("welch log P1 P2 0.95 lower", exp(lw[1])); p("welch log P1 P2 0.95 upper", exp(lw[2]))
# The same with each pair's code layout: the t interval over the layouts' 20 % trimmed means
# of their pairs' log ratios (5 pairs per layout: one trimmed from each end).
Q1 <- c(10.0, 10.9, 10.2, 10.1, 11.0, 10.3, 30.0, 10.8, 10.2, 10.0, 11.1, 10.4, 10.1, 10.9, 25.0)
Q2 <- c(9.7, 10.1, 10.0, 9.8, 10.2, 10.1, 9.8, 10.0, 9.9, 9.6, 10.3, 10.2, 9.9, 10.1, 10.0)
QL <- rep(1:3, 5)
qm <- sapply(split(log(Q1) - log(Q2), QL), mean, trim = 0.2)
qt_ <- t.test(qm, conf.level = 0.95)
p("layout trimmed speedup", exp(mean(qm)))
p("layout trimmed lower", exp(qt_$conf.int[1]))
p("layout trimmed upper", exp(qt_$conf.int[2]))
# 40 pairs on 10 layouts of 4, two disturbed: the 20 % trimmed mean (Yuen's) over the layouts'
# medians (20 % of 4 pairs trims none), with the winsorized standard error and h - 1 df.
set.seed(3)
Y1 <- round(10 * exp(rnorm(40, 0.03, 0.02)), 3); Y2 <- round(10 * exp(rnorm(40, 0, 0.02)), 3)
Y1[c(5, 17)] <- c(30, 24)
ym <- sort(sapply(split(log(Y1) - log(Y2), rep(1:10, 4)), median))
yg <- floor(0.2 * length(ym)); yh <- length(ym) - 2 * yg
yw <- ym; yw[1:yg] <- ym[yg + 1]; yw[(length(ym) - yg + 1):length(ym)] <- ym[length(ym) - yg]
yse <- sqrt((length(ym) - 1) * var(yw) / (yh * (yh - 1)))
ytm <- mean(ym, trim = 0.2)
p("layouts yuen speedup", exp(ytm))
p("layouts yuen lower", exp(ytm - qt(0.975, yh - 1) * yse))
p("layouts yuen upper", exp(ytm + qt(0.975, yh - 1) * yse))
# Holm over 6 hypotheses of which these 4 p-values are candidates.
print(p.adjust(c(0.001, 0.02, 0.0049, 0.012), "holm", n = 6))
# Three samples with a covariate (logs of the loop and of its run's controls): the slope fitted
# within samples (the common slope of lm with a level per sample) and sample 1's mean adjusted
# by it to the covariate 0.5, with the squared standard error of that mean.
CY <- c(6.91, 6.95, 6.88, 7.02, 6.93, 6.81, 6.86, 6.79, 6.90, 6.84, 6.83, 7.10, 7.04, 7.15, 7.08)
CX <- c(0.50, 0.53, 0.48, 0.58, 0.51, 0.47, 0.52, 0.45, 0.55, 0.50, 0.49, 0.51, 0.46, 0.56, 0.50)
CG <- factor(rep(1:3, c(5, 6, 4)))
cb <- coef(lm(CY ~ CX + CG))[["CX"]]
p("covariate slope", cb)
cr <- CY[CG == 1] - cb * CX[CG == 1]
p("covariate adjusted mean 1", mean(CY[CG == 1]) - cb * (mean(CX[CG == 1]) - 0.5))
p("covariate adjusted se2 1", var(cr) / length(cr))
