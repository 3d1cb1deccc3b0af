#!/usr/bin/perl
# bench_cpu_sample in one process (bench/lib.sh): every second, until STOP exists, appends
# "<epoch ms> <name> <pid> <ticks>" for each JVM given as NAME:PID (bench_processes), each
# PostgreSQL process (postgres:<database after PREFIX>, or postgres:server) and the machine
# (machine 0 <busy ticks>), and for each JVM the ticks of its C1 and C2 compiler threads, which
# its own line includes (jit:NAME <pid> <ticks>). MODE "once" takes one sample and ends; "loop" samples until STOP.
#   cpu-sampler.pl OUT STOP PREFIX MODE NAME:PID...
use strict;
use warnings;
use Time::HiRes qw(time sleep);

my ($out, $stop, $prefix, $mode, @jvms) = @ARGV;

sub slurp {
  my ($path) = @_;
  open(my $fh, '<', $path) or return undef;
  local $/;
  my $text = <$fh>;
  close($fh);
  return $text;
}

# utime + stime of /proc/PID/stat (the fields after the command's closing parenthesis).
sub ticks {
  my ($pid) = @_;
  my $stat = slurp("/proc/$pid/stat") // return;
  $stat =~ s/^.*\) //s;
  my @f = split(' ', $stat);
  return $f[11] + $f[12];
}

# The ticks of a JVM's C1 and C2 compiler threads (bench_jit_report's JIT, and bench_cpu_report's).
sub jit_ticks {
  my ($pid) = @_;
  opendir(my $tasks, "/proc/$pid/task") or return;
  my $sum = 0;
  for my $tid (grep { /^\d+$/ } readdir($tasks)) {
    my $comm = slurp("/proc/$pid/task/$tid/comm") // next;
    next unless $comm =~ /^C[12] CompilerThre/;
    my $stat = slurp("/proc/$pid/task/$tid/stat") // next;
    $stat =~ s/^.*\) //s;
    my @f = split(' ', $stat);
    $sum += $f[11] + $f[12];
  }
  closedir($tasks);
  return $sum;
}

sub sample {
  my $now = int(time() * 1000);
  my @lines;
  for my $jvm (@jvms) {
    my ($name, $pid) = split(/:/, $jvm);
    my $ticks = ticks($pid);
    next unless defined $ticks;
    push @lines, "$now $name $pid $ticks";
    my $jit = jit_ticks($pid);
    push @lines, "$now jit:$name $pid $jit" if defined $jit;
  }
  opendir(my $proc, '/proc') or return;
  for my $pid (grep { /^\d+$/ } readdir($proc)) {
    my $comm = slurp("/proc/$pid/comm") // next;
    next unless $comm eq "postgres\n";
    my $ticks = ticks($pid) // next;
    my $title = slurp("/proc/$pid/cmdline") // next;
    my $db = 'server';
    for my $word (split(/[\s\0]+/, $title)) {
      if (index($word, $prefix) == 0) { $db = substr($word, length($prefix)); last; }
    }
    push @lines, "$now postgres:$db $pid $ticks";
  }
  closedir($proc);
  my $stat = slurp('/proc/stat') // '';
  if ($stat =~ /^cpu\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)/m) {
    push @lines, "$now machine 0 " . ($1 + $2 + $3 + $4 + $5 + $6);
  }
  open(my $fh, '>>', $out) or return;
  print $fh map { "$_\n" } @lines;
  close($fh);
}

if ($mode eq 'once') {
  sample();
  exit 0;
}
until (-e $stop) {
  sample();
  sleep 1;
}
